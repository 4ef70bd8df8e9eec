import path from 'node:path';
import type Database from 'better-sqlite3';
import { findCheckout, nodeCheckoutFs, type CheckoutFs } from '../repository/checkout.js';
import { normalizeProject } from './search.js';

/**
 * What `--project P` (search, export, forget, the MCP tools, the context route) means: the
 * project memory is stored under. Any checkout of a repository names its project — the main
 * checkout or a worktree, or a folder inside one, read from git's files as the hooks do — and so
 * does a checkout the store knows that is gone from disk (a removed worktree). A relative path
 * (`.`, `../app-wt`, `src/`) is a path from `cwd` when one is given, as a shell user means it; a
 * bare name is a project name the store holds (an import kept `project-0` as given) before it is a
 * folder. Anything else (a folder outside git) is matched exactly, a trailing `/` ignored.
 */
export function resolveProjectArgument(db: Database.Database, raw: string, options: { cwd?: string; fs?: CheckoutFs } = {}): string {
  const fs = options.fs ?? nodeCheckoutFs;
  let given = normalizeProject(raw);
  if (!path.isAbsolute(given)) {
    if (options.cwd === undefined || !looksLikePath(db, given, path.resolve(options.cwd, given), fs)) return given;
    given = path.resolve(options.cwd, given);
  }
  const found = findCheckout(given, fs);
  if (found) return found.project;
  const known = db
    .prepare(
      'SELECT project FROM sessions WHERE checkout = ? AND project IS NOT NULL UNION ALL SELECT project FROM observations WHERE checkout = ? AND project IS NOT NULL LIMIT 1',
    )
    .get(given, given) as { project: string } | undefined;
  return known?.project ?? given;
}

function looksLikePath(db: Database.Database, given: string, resolved: string, fs: CheckoutFs): boolean {
  if (given.startsWith('.') || given.includes('/')) return true;
  const named = db.prepare('SELECT 1 FROM sessions WHERE project = ? UNION ALL SELECT 1 FROM observations WHERE project = ? LIMIT 1').get(given, given);
  return named === undefined && fs.kind(resolved) === 'dir';
}
