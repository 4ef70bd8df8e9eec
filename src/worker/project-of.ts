import path from 'node:path';
import { findCheckout, nodeCheckoutFs, type CheckoutFs } from '../repository/checkout.js';
import type { CheckoutResolver } from '../repository/project-resolver.js';

/**
 * A project is its repository: the main checkout of the repository a directory is in, so every
 * worktree of a repository is one project and a subdirectory lands in its repository
 * (src/repository/checkout.ts reads git's files; no git process runs). Outside any repository it
 * is the full working directory — never the folder's basename, so two repositories named `api`
 * keep separate memory. `checkoutOf` names the checkout itself (a worktree's root), kept on each
 * observation. Cached per cwd: hooks repeat the same few.
 */
export function createProjectResolver(options: { fs?: CheckoutFs; maxEntries?: number } = {}): CheckoutResolver {
  const fs = options.fs ?? nodeCheckoutFs;
  const cache = new Map<string, { project: string; checkout: string }>();
  const max = options.maxEntries ?? 1_000;
  const resolve = (cwd: string | null | undefined) => {
    if (typeof cwd !== 'string' || cwd.trim() === '') return null;
    const start = path.resolve(cwd);
    const hit = cache.get(start);
    if (hit) return hit;
    const found = findCheckout(start, fs) ?? { project: start, checkout: start };
    if (cache.size >= max) cache.clear();
    cache.set(start, found);
    return found;
  };
  return Object.assign((cwd: string | null | undefined) => resolve(cwd)?.project ?? null, {
    checkoutOf: (cwd: string | null | undefined) => resolve(cwd)?.checkout ?? null,
  });
}

/** How a project is shown to people: its last path component (without a bare repository's `.git`). */
export function projectLabel(project: string | null): string | null {
  if (!project) return null;
  const base = path.basename(project);
  return (base.endsWith('.git') && base.length > 4 ? base.slice(0, -4) : base) || project;
}
