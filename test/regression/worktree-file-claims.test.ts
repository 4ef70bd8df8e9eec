/**
 * A file an agent edited in a linked worktree is claimed relative to that worktree, not to the
 * repository's main checkout (the project since issue 29): the claim must stay, not be removed as
 * written by no tool event.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createReplayProvider } from '../../src/providers/index.js';
import { makeRepoWithWorktrees } from '../support/git-worktrees.js';
import { observationXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

describe('file claims in a worktree', () => {
  let h: Harness | undefined;
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(async () => {
    await h?.stop();
    temp?.cleanup();
  });

  it('keeps a relative files_modified entry that an Edit in the worktree wrote', async () => {
    temp = makeTempDir('memtrace-worktree-claims-');
    const repo = makeRepoWithWorktrees(path.join(temp.dir, 'code'));
    const reply = observationXml({ type: 'change', title: 'Edited the cart', filesModified: ['src/cart.ts', 'src/invented.ts'] });
    h = await startHarness(createReplayProvider({ lines: [JSON.stringify({ text: reply })] }));
    const res = await h.post('/api/sessions/observations', {
      session_id: 's',
      tool_use_id: 'edit-1',
      tool_name: 'Edit',
      tool_input: { file_path: path.join(repo.feature, 'src/cart.ts'), old_string: 'a', new_string: 'b' },
      tool_response: {},
      cwd: repo.feature,
    });
    expect(res.status).toBe(202);
    await h.drained();
    const [stored] = h.worker.store.observations.recentForProject(repo.main, 5);
    expect(stored).toMatchObject({ project: repo.main, checkout: repo.feature, files_modified: ['src/cart.ts'] });
  });
});
