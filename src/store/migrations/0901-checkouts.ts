import type { Migration } from '../migrate.js';
import { moveWorktreeProjects } from '../project-moves.js';

/**
 * One project per repository (docs/memory.md#one-project-per-repository). Sessions, observations
 * and session summaries keep the checkout they were made in (a worktree's root, or the main
 * checkout), so the viewer and `memtrace show` can name it while the project is the repository.
 * Rows an older memtrace stored under a worktree's path move to their repository's project
 * (project-moves.ts reads git's files where the paths exist); each move is recorded in
 * `project_moves`, so the worker can rewrite the context files of those projects once.
 */
export const CHECKOUTS_SCHEMA: Migration = {
  id: '0901_checkouts',
  up(db) {
    db.exec(`
      ALTER TABLE sessions ADD COLUMN checkout TEXT;
      ALTER TABLE observations ADD COLUMN checkout TEXT;
      ALTER TABLE summaries ADD COLUMN checkout TEXT;
      CREATE TABLE project_moves (
        from_project TEXT PRIMARY KEY,
        to_project TEXT NOT NULL,
        observations INTEGER NOT NULL,
        summaries INTEGER NOT NULL,
        sessions INTEGER NOT NULL,
        -- Compacted summaries dropped because two histories could not be merged (made again by compaction).
        history_dropped INTEGER NOT NULL,
        moved_at INTEGER NOT NULL,
        context_rewritten INTEGER NOT NULL DEFAULT 0
      ) WITHOUT ROWID;
      -- What an older memtrace stored was made in the checkout its project names.
      UPDATE sessions SET checkout = project WHERE project IS NOT NULL;
      UPDATE observations SET checkout = project WHERE project IS NOT NULL;
      UPDATE summaries SET checkout = project WHERE project IS NOT NULL;
    `);
    moveWorktreeProjects(db);
  },
};
