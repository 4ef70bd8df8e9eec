import path from 'node:path';
import type Database from 'better-sqlite3';
import { nodeCheckoutFs, projectOfCheckout, recordedWorktrees, type CheckoutFs } from '../repository/checkout.js';

/**
 * Memory an older memtrace recorded under a worktree's path moves to its repository's project
 * (docs/memory.md#one-project-per-repository). Run once by schema step 0901, on the machine where
 * the paths are: a recorded project that is a linked worktree on disk, or one its repository
 * still lists under `.git/worktrees/` (deleted but not pruned), moves; any other path (a removed
 * and pruned worktree, a repository that is not on this disk) stays as it was. The rows keep
 * their worktree's path as their checkout.
 */
export interface ProjectMove {
  from: string;
  to: string;
  observations: number;
  summaries: number;
  sessions: number;
}

function repositoryOf(project: string, checkoutFs: CheckoutFs, recorded: ReadonlyMap<string, string>): string | null {
  if (!path.isAbsolute(project)) return null;
  const target = checkoutFs.kind(path.join(project, '.git')) !== null ? projectOfCheckout(project, checkoutFs) : (recorded.get(project) ?? null);
  return target !== null && target !== project ? target : null;
}

/**
 * Compacted history covers each project's observations as one contiguous run by id; two runs
 * merged into one project break that, and the observations between them would never be shown or
 * condensed. Then the repository's compacted summaries go (they are made from observations,
 * which all stay) and compaction makes them again from the merged observations.
 */
function dropBrokenHistory(db: Database.Database, project: string): number {
  const reach = (
    db.prepare("SELECT max(last_observation_id) AS id FROM memory_summaries WHERE project = ? AND kind = 'leaf'").get(project) as { id: number | null }
  ).id;
  if (reach === null) return 0;
  const gap = db
    .prepare(`
      SELECT 1 FROM observations o WHERE o.project = ? AND o.id <= ? AND NOT EXISTS (
        SELECT 1 FROM summary_sources s JOIN memory_summaries m ON m.id = s.summary_id WHERE s.observation_id = o.id AND m.project = o.project)
      LIMIT 1`)
    .get(project, reach);
  if (gap === undefined) return 0;
  db.prepare('UPDATE memory_summaries SET condensed_into = NULL WHERE project = ?').run(project);
  const dropped = db.prepare('DELETE FROM memory_summaries WHERE project = ?').run(project).changes;
  db.prepare('DELETE FROM compaction_state WHERE project = ?').run(project);
  return dropped;
}

export function moveWorktreeProjects(db: Database.Database, checkoutFs: CheckoutFs = nodeCheckoutFs, nowMs = Date.now()): ProjectMove[] {
  const projects = (
    db
      .prepare(
        'SELECT project FROM sessions WHERE project IS NOT NULL UNION SELECT project FROM observations WHERE project IS NOT NULL UNION SELECT project FROM summaries WHERE project IS NOT NULL',
      )
      .all() as Array<{ project: string }>
  ).map((r) => r.project);
  // Worktrees gone from disk are still named by their repository until `git worktree prune`.
  const recorded = new Map<string, string>();
  for (const project of projects) {
    if (!path.isAbsolute(project) || checkoutFs.kind(path.join(project, '.git')) !== 'dir') continue;
    for (const worktree of recordedWorktrees(project, checkoutFs)) if (checkoutFs.kind(worktree) === null) recorded.set(worktree, project);
  }
  const moves: ProjectMove[] = [];
  const targets = new Set<string>();
  for (const from of projects) {
    const to = repositoryOf(from, checkoutFs, recorded);
    if (to === null) continue;
    const run = (table: string) =>
      db.prepare(`UPDATE ${table} SET checkout = coalesce(checkout, project), project = ? WHERE project = ?`).run(to, from).changes;
    moves.push({ from, to, observations: run('observations'), summaries: run('summaries'), sessions: run('sessions') });
    db.prepare('UPDATE memory_summaries SET project = ? WHERE project = ?').run(to, from);
    db.prepare('DELETE FROM compaction_state WHERE project = ?').run(from);
    targets.add(to);
  }
  const record = db.prepare(
    'INSERT OR REPLACE INTO project_moves (from_project, to_project, observations, summaries, sessions, history_dropped, moved_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const dropped = new Map([...targets].map((t) => [t, dropBrokenHistory(db, t)]));
  for (const m of moves) record.run(m.from, m.to, m.observations, m.summaries, m.sessions, dropped.get(m.to) ?? 0, nowMs);
  return moves;
}
