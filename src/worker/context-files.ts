import type Database from 'better-sqlite3';
import { buildContext, createContextQuery, DEFAULT_BUDGET_TOKENS } from '../context/index.js';
import { writeContextFile } from '../data-dir/index.js';
import { adapterFor, isHostName, sessionStartContextJson } from '../hosts/index.js';
import type { Logger } from '../log.js';
import { projectLabel } from './project-of.js';

/** Directories kept per project: the most recently used ones. */
const CWDS_PER_PROJECT = 50;

/**
 * Keeps the context a session start got for its directory, after the reply: the file is for a
 * later start with no worker, and writing it (fsync, rename) would otherwise sit on the one hook
 * the agent waits for.
 */
export function keepContextAfterReply(dataDir: string, log: Logger): (cwd: string, output: string, variant: string | null) => void {
  return (cwd, output, variant) =>
    setImmediate(() => {
      try {
        writeContextFile(dataDir, cwd, output === '' ? null : output, variant);
      } catch (error) {
        log.warn('could not keep the context file', { error: String(error) });
      }
    });
}

/**
 * Keeps, for every directory sessions of a project started in, the context a new session there
 * would get (DATA_DIR/context/…), so that a session starting while no worker runs still gets its
 * memory at once. Rewritten when a project's memory changed (new observations or summaries) and
 * after `memtrace forget`, never on a hook's path. A project an upgrade merged worktrees into
 * (project_moves, step 0901) is rewritten once, so a worktree's file holds its repository's memory.
 */
export function createContextFiles(deps: {
  db: Database.Database;
  dataDir: string;
  /**
   * Lets the event loop serve hooks between projects: one project's context is read from the
   * store in one synchronous step (13–16 ms at a million observations), all seven of the bench's
   * together 93–113 ms.
   */
  pause?: () => Promise<void>;
}) {
  const pause = deps.pause ?? (() => new Promise<void>((resolve) => setImmediate(resolve)));
  const query = createContextQuery(deps.db);
  const marks = deps.db.prepare(
    'SELECT (SELECT coalesce(max(id), 0) FROM observations) AS o, (SELECT coalesce(max(id), 0) FROM summaries) AS s, (SELECT coalesce(max(rowid), 0) FROM memory_summaries) AS m',
  );
  const changed = deps.db.prepare(`
    SELECT project FROM observations WHERE id > @o AND project IS NOT NULL
    UNION SELECT project FROM summaries WHERE id > @s AND project IS NOT NULL
    UNION SELECT project FROM memory_summaries WHERE rowid > @m AND project IS NOT NULL`);
  const moved = deps.db.prepare('SELECT DISTINCT to_project AS project FROM project_moves WHERE context_rewritten = 0');
  const markMoved = deps.db.prepare('UPDATE project_moves SET context_rewritten = 1 WHERE to_project = ?');
  const cwds = deps.db.prepare(
    'SELECT cwd, group_concat(DISTINCT platform) AS platforms FROM sessions WHERE project = ? AND cwd IS NOT NULL GROUP BY cwd ORDER BY max(updated_at) DESC LIMIT ?',
  );
  let seen = marks.get() as { o: number; s: number; m: number };

  async function write(projects: Iterable<string>, nowMs: number): Promise<number> {
    let written = 0;
    let first = true;
    for (const project of projects) {
      if (!first) await pause();
      first = false;
      const { markdown } = buildContext(query, { project, label: projectLabel(project), budgetTokens: DEFAULT_BUDGET_TOKENS, nowMs });
      const empty = markdown.trim() === '';
      for (const { cwd, platforms } of cwds.all(project, CWDS_PER_PROJECT) as Array<{ cwd: string; platforms: string | null }>) {
        writeContextFile(deps.dataDir, cwd, empty ? null : sessionStartContextJson(markdown));
        written += 1;
        // A host with its own context JSON (Copilot) gets its copy where its sessions ran.
        for (const platform of (platforms ?? '').split(',')) {
          const adapter = isHostName(platform) ? adapterFor(platform) : null;
          if (!adapter?.contextVariant) continue;
          writeContextFile(deps.dataDir, cwd, empty ? null : adapter.contextOutput(markdown), adapter.contextVariant);
          written += 1;
        }
      }
    }
    return written;
  }

  return {
    /** Rewrites the files of projects whose memory grew since the last call; the count of files written. */
    async refreshChanged(nowMs: number): Promise<number> {
      const now = marks.get() as typeof seen;
      const merged = (moved.all() as Array<{ project: string }>).map((r) => r.project);
      if (now.o === seen.o && now.s === seen.s && now.m === seen.m && merged.length === 0) return 0;
      const projects = new Set([...(changed.all(seen) as Array<{ project: string }>).map((r) => r.project), ...merged]);
      seen = now;
      const written = await write(projects, nowMs);
      for (const project of merged) markMoved.run(project);
      return written;
    },
    /** Rewrites the files of these projects (after memory was removed from them). */
    rewrite: (projects: Iterable<string>, nowMs: number) => write(projects, nowMs),
  };
}
