import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { openStore, type Store } from '../../src/store/index.js';
import { captureIO } from '../support/cli-io.js';
import { makeRepoWithWorktrees } from '../support/git-worktrees.js';
import { addObservation } from '../support/memory-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';

/**
 * Bug: `memtrace search --project .` (or `../app-feature`, or a folder inside the repository) found
 * nothing: a relative path was matched as a project name, word for word, and a folder inside a
 * checkout was not its repository. Found by running the packed package in a worktree as a user would.
 */
describe('--project given as a relative path or a folder inside a checkout', () => {
  const temp = makeTempDir('memtrace-relative-project-');
  const dataDir = path.join(temp.dir, 'data');
  let repo: ReturnType<typeof makeRepoWithWorktrees>;
  let store: Store;
  let id: number;
  beforeAll(() => {
    repo = makeRepoWithWorktrees(path.join(temp.dir, 'code'));
    store = openStore(path.join(dataDir, 'memtrace.db'));
    id = addObservation(store, { project: repo.main, title: 'cart totals round half to even' });
    addObservation(store, { project: 'project-0', title: 'cart totals imported from a peer' });
    store.close();
  });
  afterAll(() => temp.cleanup());

  const search = async (cwd: string, project: string) => {
    const c = captureIO({ cwd, env: { MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0', HOME: temp.dir } });
    expect(await main(['search', '--json', '--project', project, 'cart', 'totals'], c.io), c.stderr()).toBe(0);
    return (JSON.parse(c.stdout()) as { results: Array<{ id: number; title: string }> }).results;
  };

  it('takes `.` in a worktree, a sibling worktree by its relative path and a folder inside the repository', async () => {
    expect((await search(repo.feature, '.')).map((r) => r.id)).toEqual([id]);
    expect((await search(repo.main, '../app-feature')).map((r) => r.id)).toEqual([id]);
    expect((await search(repo.main, 'src/cart')).map((r) => r.id)).toEqual([id]);
    expect((await search(temp.dir, repo.subdir)).map((r) => r.id)).toEqual([id]);
  });

  it('still reads a bare name the store holds as that project, not a folder', async () => {
    expect((await search(temp.dir, 'project-0')).map((r) => r.title)).toEqual(['cart totals imported from a peer']);
  });
});
