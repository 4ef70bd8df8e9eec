/**
 * The upgrade of issue 29, item 2: memory an older memtrace recorded under a worktree's path
 * moves to its repository's project (real `git worktree add`, real SQLite files).
 */
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemorySearch, resolveProjectArgument } from '../../src/memory/index.js';
import { MIGRATIONS, openDatabase, openStore } from '../../src/store/index.js';
import { git, makeRepoWithWorktrees } from '../support/git-worktrees.js';
import { T0 } from '../support/memory-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';

const BEFORE = MIGRATIONS.slice(
  0,
  MIGRATIONS.findIndex((m) => m.id === '0901_checkouts'),
);

/** Rows as an older memtrace stored them: the project is the checkout the session ran in. */
function oldRows(db: Database.Database, project: string, session: string, title: string): number {
  db.prepare("INSERT OR IGNORE INTO sessions (session_id, project, cwd, status, created_at, updated_at) VALUES (?, ?, ?, 'ended', ?, ?)").run(
    session,
    project,
    project,
    T0,
    T0,
  );
  db.prepare(`INSERT INTO summaries (session_id, project, request, investigated, learned, completed, next_steps, notes, source_message_ids, provider, prompt_version, created_at)
    VALUES (?, ?, ?, '', '', '', '', '', '[]', 'replay', 'v0', ?)`).run(session, project, `summary of ${title}`, T0);
  const id = Number(
    db
      .prepare(`INSERT INTO observations (session_id, project, type, title, subtitle, narrative, facts, concepts, files_read, files_modified, source_message_ids, provider, prompt_version, created_at)
        VALUES (?, ?, 'bugfix', ?, '', 'narrative', '[]', '[]', '[]', '[]', '[]', 'replay', 'v0', ?)`)
      .run(session, project, title, T0).lastInsertRowid,
  );
  db.prepare('INSERT INTO memory_fts (rowid, title, narrative) VALUES (?, ?, ?)').run(id, title, 'narrative');
  return id;
}

describe('the upgrade to one project per repository (step 0901)', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let repo: ReturnType<typeof makeRepoWithWorktrees>;
  let file: string;
  beforeEach(() => {
    temp = makeTempDir('memtrace-moves-');
    repo = makeRepoWithWorktrees(path.join(temp.dir, 'code'));
    file = path.join(temp.dir, 'memtrace.db');
  });
  afterEach(() => temp.cleanup());

  it('moves rows recorded under a worktree to the repository, keeps the worktree as their checkout, and records the move', () => {
    const old = openDatabase(file, { migrations: BEFORE });
    oldRows(old, repo.main, 's-main', 'Main checkout finding');
    oldRows(old, repo.feature, 's-feature', 'Feature worktree finding');
    oldRows(old, repo.submodule, 's-sub', 'Submodule finding');
    oldRows(old, '/somewhere/not/on/this/disk', 's-gone', 'Elsewhere finding');
    old.close();

    const store = openStore(file);
    try {
      const rows = store.db.prepare('SELECT session_id, project, checkout FROM observations ORDER BY id').all();
      expect(rows).toEqual([
        { session_id: 's-main', project: repo.main, checkout: repo.main },
        { session_id: 's-feature', project: repo.main, checkout: repo.feature },
        { session_id: 's-sub', project: repo.submodule, checkout: repo.submodule },
        { session_id: 's-gone', project: '/somewhere/not/on/this/disk', checkout: '/somewhere/not/on/this/disk' },
      ]);
      expect(store.sessions.get('s-feature')).toMatchObject({ project: repo.main, checkout: repo.feature });
      expect(store.db.prepare("SELECT project, checkout FROM summaries WHERE session_id = 's-feature'").get()).toEqual({
        project: repo.main,
        checkout: repo.feature,
      });
      expect(store.db.prepare('SELECT from_project, to_project, observations, summaries, sessions, context_rewritten FROM project_moves').all()).toEqual([
        { from_project: repo.feature, to_project: repo.main, observations: 1, summaries: 1, sessions: 1, context_rewritten: 0 },
      ]);
      // --project with either checkout's path finds the repository's memory.
      const search = createMemorySearch(store.db);
      for (const given of [repo.main, `${repo.feature}/`, repo.fix]) {
        expect(
          search
            .search('finding', { project: resolveProjectArgument(store.db, given) })
            .map((h) => h.title)
            .sort(),
        ).toEqual(['Feature worktree finding', 'Main checkout finding']);
      }
    } finally {
      store.close();
    }
  });

  it('moves a worktree deleted from disk but not pruned; one pruned stays its own project', () => {
    const old = openDatabase(file, { migrations: BEFORE });
    oldRows(old, repo.main, 's-main', 'Main checkout finding');
    oldRows(old, repo.fix, 's-fix', 'Fix worktree finding');
    oldRows(old, repo.feature, 's-feature', 'Feature worktree finding');
    old.close();
    fs.rmSync(repo.fix, { recursive: true, force: true }); // deleted, still listed in .git/worktrees
    fs.rmSync(repo.feature, { recursive: true, force: true });
    git(repo.main, 'worktree', 'prune'); // now both are gone from git's list…
    // …so recreate the record of one: a worktree removed by hand, not pruned yet.
    fs.mkdirSync(path.join(repo.main, '.git', 'worktrees', 'app-fix'), { recursive: true });
    fs.writeFileSync(path.join(repo.main, '.git', 'worktrees', 'app-fix', 'gitdir'), `${path.join(repo.fix, '.git')}\n`);

    const store = openStore(file);
    try {
      const project = (session: string) => store.sessions.get(session)!.project;
      expect(project('s-fix')).toBe(repo.main);
      expect(project('s-feature')).toBe(repo.feature);
      // A removed worktree's path still finds its memory: the store knows that checkout.
      expect(resolveProjectArgument(store.db, repo.fix)).toBe(repo.main);
    } finally {
      store.close();
    }
  });

  it('merges compacted history that stays one run, and drops (for compaction to make again) history that cannot', () => {
    const old = openDatabase(file, { migrations: BEFORE });
    const a = oldRows(old, repo.main, 's-main', 'one');
    const b = oldRows(old, repo.feature, 's-feature', 'two');
    oldRows(old, repo.main, 's-main', 'three');
    const leaf = (project: string, id: number) => {
      const summary = Number(
        old
          .prepare(`INSERT INTO memory_summaries (project, kind, depth, level, content, token_count, source_token_count, first_observation_id,
            last_observation_id, observation_count, earliest_at, latest_at, created_at, updated_at) VALUES (?, 'leaf', 0, 'normal', 'c', 1, 1, ?, ?, 1, ?, ?, ?, ?)`)
          .run(project, id, id, T0, T0, T0, T0).lastInsertRowid,
      );
      old.prepare('INSERT INTO summary_sources (summary_id, ordinal, observation_id) VALUES (?, 0, ?)').run(summary, id);
    };
    // The main checkout's history covers observation `a` and the worktree's `b`: after the move
    // `a` and `b` are one run of the repository (ids 1, 2), so the history stays.
    leaf(repo.main, a);
    leaf(repo.feature, b);
    old.prepare('INSERT INTO compaction_state (project_key, project, updated_at) VALUES (?, ?, 0)').run(`=${repo.feature}`, repo.feature);
    old.close();
    let store = openStore(file);
    expect(store.db.prepare('SELECT project FROM memory_summaries').all()).toEqual([{ project: repo.main }, { project: repo.main }]);
    expect(store.db.prepare('SELECT count(*) AS n FROM compaction_state').get()).toEqual({ n: 0 });
    store.close();

    // Worktree history over an observation newer than one the main checkout never condensed: a gap.
    const file2 = path.join(temp.dir, 'gap.db');
    const old2 = openDatabase(file2, { migrations: BEFORE });
    oldRows(old2, repo.main, 's-main', 'one');
    const wt = oldRows(old2, repo.feature, 's-feature', 'two');
    const summary = Number(
      old2
        .prepare(`INSERT INTO memory_summaries (project, kind, depth, level, content, token_count, source_token_count, first_observation_id,
          last_observation_id, observation_count, earliest_at, latest_at, created_at, updated_at) VALUES (?, 'leaf', 0, 'normal', 'c', 1, 1, ?, ?, 1, ?, ?, ?, ?)`)
        .run(repo.feature, wt, wt, T0, T0, T0, T0).lastInsertRowid,
    );
    old2.prepare('INSERT INTO summary_sources (summary_id, ordinal, observation_id) VALUES (?, 0, ?)').run(summary, wt);
    old2.close();
    store = openStore(file2);
    try {
      expect(store.db.prepare('SELECT count(*) AS n FROM memory_summaries').get()).toEqual({ n: 0 });
      expect(store.db.prepare('SELECT history_dropped FROM project_moves').get()).toEqual({ history_dropped: 1 });
      expect(store.db.prepare('SELECT count(*) AS n FROM observations WHERE project = ?').get(repo.main)).toEqual({ n: 2 });
    } finally {
      store.close();
    }
  });
});
