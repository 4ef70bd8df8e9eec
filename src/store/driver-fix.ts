import path from 'node:path';

/**
 * The one command that completes a SQLite driver build a package manager skipped (pnpm ≥ 10 and
 * bun run no dependency's install script unless approved; `npm --ignore-scripts` runs none), read
 * from where the driver's package lies. Pure: paths in, a shell line out.
 */
export function driverFixCommand(driverDir: string): string {
  const parts = driverDir.split(path.sep);
  const pnpmAt = parts.lastIndexOf('.pnpm');
  if (pnpmAt > 0) {
    // <root>/node_modules/.pnpm/better-sqlite3@V/node_modules/better-sqlite3
    const root = parts.slice(0, pnpmAt - 1).join(path.sep) || path.sep;
    const global = parts.includes('global') && parts.some((p) => p === 'pnpm' || p === '.pnpm-global');
    return global ? 'pnpm approve-builds -g better-sqlite3' : `cd ${quote(root)} && pnpm approve-builds better-sqlite3`;
  }
  // bun: its global folder (~/.bun/install/global) and isolated installs (node_modules/.bun/…).
  const bunAt = parts.indexOf('.bun');
  if (bunAt > 0) {
    const root = parts[bunAt - 1] === 'node_modules' ? parts.slice(0, bunAt - 1).join(path.sep) || path.sep : rootOf(parts);
    return `cd ${quote(root)} && bun pm trust better-sqlite3`;
  }
  return `cd ${quote(rootOf(parts))} && npm rebuild better-sqlite3`;
}

/** The folder whose node_modules holds the driver (the last node_modules in its path). */
function rootOf(parts: string[]): string {
  const at = parts.lastIndexOf('node_modules');
  return at > 0 ? parts.slice(0, at).join(path.sep) || path.sep : parts.join(path.sep);
}

function quote(word: string): string {
  return /^[A-Za-z0-9_/.:=@+-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** Whether a load error is the native addon missing or built for another Node (not a bug of ours). */
export function isMissingAddon(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return (
    /Could not locate the bindings file|was compiled against a different Node\.js version|NODE_MODULE_VERSION|better_sqlite3\.node/.test(message) ||
    code === 'ERR_DLOPEN_FAILED' ||
    (code === 'MODULE_NOT_FOUND' && message.includes('better-sqlite3'))
  );
}
