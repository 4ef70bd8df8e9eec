import path from 'node:path';
import type Database from 'better-sqlite3';
import { nodeCheckoutFs, projectOfCheckout, type CheckoutFs } from '../repository/checkout.js';
import { normalizeProject } from './search.js';

/**
 * What `--project P` (search, export, forget, the MCP tools, the context route) means: the
 * project memory is stored under. Any checkout of a repository names its project — the main
 * checkout or a worktree, read from git's files as the hooks do — and so does a checkout the store
 * knows that is gone from disk (a removed worktree). Anything else (a folder outside git, a
 * project name an import kept) is matched exactly, a trailing `/` ignored.
 */
export function resolveProjectArgument(db: Database.Database, raw: string, fs: CheckoutFs = nodeCheckoutFs): string {
  const given = normalizeProject(raw);
  if (!path.isAbsolute(given)) return given;
  if (fs.kind(path.join(given, '.git')) !== null) return projectOfCheckout(given, fs);
  const known = db
    .prepare(
      'SELECT project FROM sessions WHERE checkout = ? AND project IS NOT NULL UNION ALL SELECT project FROM observations WHERE checkout = ? AND project IS NOT NULL LIMIT 1',
    )
    .get(given, given) as { project: string } | undefined;
  return known?.project ?? given;
}
