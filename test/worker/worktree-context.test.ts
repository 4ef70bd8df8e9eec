/**
 * One project per repository (issue 29, item 2), end to end: sessions in worktrees made by real
 * `git worktree add` land in their repository's project, keep their checkout, and a session
 * starting in any checkout gets what was learned in the others — live from the worker and, with
 * no worker running, from the context file the forwarder prints.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { noProvider } from '../../src/providers/index.js';
import { observationView, renderObservation } from '../../src/memory/provenance-view.js';
import { hookCommand, runHookProcess } from '../support/hook-process.js';
import { makeRepoWithWorktrees } from '../support/git-worktrees.js';
import { addObservation } from '../support/memory-fixtures.js';
import { stopStartedWorker } from '../support/started-worker.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, type Harness } from '../support/worker-harness.js';
import { MIGRATIONS, openDatabase, openStore } from '../../src/store/index.js';
import { createContextFiles } from '../../src/worker/context-files.js';
import { readContextFile } from '../../src/data-dir/index.js';

describe('memory across the worktrees of a repository', () => {
  let h: Harness | undefined;
  let temp: ReturnType<typeof makeTempDir>;
  let dataDir = '';
  afterEach(async () => {
    await h?.stop();
    if (dataDir) await stopStartedWorker(dataDir, 15_000);
    temp?.cleanup();
  });

  it('gives a session in one worktree what the main checkout and another worktree learned, live and with no worker', async () => {
    temp = makeTempDir('memtrace-worktree-context-');
    const repo = makeRepoWithWorktrees(path.join(temp.dir, 'code'));
    dataDir = path.join(temp.dir, 'data');
    h = await startHarness(noProvider(), { dataDir });
    const env = { MEMTRACE_DATA_DIR: dataDir, HOME: temp.dir };
    const start = (sessionId: string, cwd: string) =>
      runHookProcess(
        hookCommand('forwarder', 'claude-code', 'session-start'),
        Buffer.from(
          JSON.stringify({
            session_id: sessionId,
            cwd,
            transcript_path: path.join(temp.dir, `${sessionId}.jsonl`),
            hook_event_name: 'SessionStart',
            source: 'startup',
          }),
        ),
        { env, cwd },
      );

    // Sessions in the main checkout (a subdirectory of it) and in a worktree.
    expect((await start('s-main', repo.subdir)).code).toBe(0);
    expect((await start('s-fix', repo.fix)).code).toBe(0);
    const store = h.worker.store;
    expect(store.sessions.get('s-main')).toMatchObject({ project: repo.main, checkout: repo.main });
    expect(store.sessions.get('s-fix')).toMatchObject({ project: repo.main, checkout: repo.fix });
    const now = Date.now();
    addObservation(store, { sessionId: 's-main', project: repo.main, title: 'Cart totals round half-even', createdAt: now });
    const fromFix = addObservation(store, { sessionId: 's-fix', project: repo.main, title: 'Coupon codes are case-insensitive', createdAt: now });
    // The observation keeps the worktree it was made in, and `memtrace show` names it.
    const view = observationView(store.observations.get(fromFix)!, []);
    expect(view.provenance).toMatchObject({ project: repo.main, checkout: repo.fix });
    expect(renderObservation(view)).toContain(`checkout  ${repo.fix}`);

    const live = await start('s-feature', repo.feature);
    expect(live.code).toBe(0);
    expect(live.stdout).toContain('Cart totals round half-even');
    expect(live.stdout).toContain('Coupon codes are case-insensitive');
    const kept = path.join(dataDir, 'context', repo.feature, 'session-start.json');
    await waitFor(() => fs.existsSync(kept), 10_000);

    await h.stop();
    h = undefined;
    const cold = await start('s-feature-cold', repo.feature);
    expect(cold.code).toBe(0);
    expect(JSON.parse(cold.stdout)).toEqual(JSON.parse(live.stdout));
  });

  it('rewrites, once, the context files of a project an upgrade merged worktrees into', async () => {
    temp = makeTempDir('memtrace-worktree-files-');
    const repo = makeRepoWithWorktrees(path.join(temp.dir, 'code'));
    const files = path.join(temp.dir, 'data');
    const file = path.join(temp.dir, 'memtrace.db');
    const old = openDatabase(file, {
      migrations: MIGRATIONS.slice(
        0,
        MIGRATIONS.findIndex((m) => m.id === '0901_checkouts'),
      ),
    });
    for (const [session, project, title] of [
      ['s-main', repo.main, 'Main checkout learned this'],
      ['s-wt', repo.feature, 'Worktree learned that'],
    ] as const) {
      old
        .prepare("INSERT INTO sessions (session_id, project, cwd, status, created_at, updated_at) VALUES (?, ?, ?, 'ended', 1, 1)")
        .run(session, project, project);
      old
        .prepare(`INSERT INTO observations (session_id, project, type, title, subtitle, narrative, facts, concepts, files_read, files_modified, source_message_ids, provider, prompt_version, created_at)
          VALUES (?, ?, 'decision', ?, '', '', '[]', '[]', '[]', '[]', '[]', 'replay', 'v0', ?)`)
        .run(session, project, title, Date.now());
    }
    old.close();
    const store = openStore(file);
    try {
      const contextFiles = createContextFiles({ db: store.db, dataDir: files });
      expect(await contextFiles.refreshChanged(Date.now())).toBe(2);
      const worktreeFile = readContextFile(files, repo.feature)!;
      expect(worktreeFile).toContain('Main checkout learned this');
      expect(worktreeFile).toContain('Worktree learned that');
      expect(readContextFile(files, repo.main)).toBe(worktreeFile);
      expect(await contextFiles.refreshChanged(Date.now())).toBe(0);
    } finally {
      store.close();
    }
  });
});
