/**
 * The project of a working directory (a session's cwd), and, where the resolver knows it, the
 * checkout it is in: what hooks, mining and the CLI pass around. src/worker/project-of.ts makes
 * the real one; a plain function that only names projects is one too.
 */
export interface ProjectResolver {
  (cwd: string | null | undefined): string | null;
  checkoutOf?(cwd: string | null | undefined): string | null;
}

/** A resolver that always knows the checkout too (src/worker/project-of.ts). */
export interface CheckoutResolver extends ProjectResolver {
  checkoutOf(cwd: string | null | undefined): string | null;
}
