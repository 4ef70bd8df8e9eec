import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createReplayProvider } from '../../src/providers/index.js';
import { createGitCommitVerifier } from '../../src/worker/commit-verifier.js';
import { observationXml } from '../support/replies.js';
import { fakeGit, makeGitRepo } from '../support/git-repo.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

/**
 * Bug (issue 10): commit hashes were checked with one synchronous `git cat-file -e` per hash on
 * the worker's only thread, so a turn with 20 hashes stopped every hook request for the length
 * of 40 process starts. Now one git process per turn, awaited, never blocking requests: checked
 * with a git that waits for the test, not with a clock.
 */
describe('checking 20 claimed commits against a slow git', () => {
  let h: Harness | undefined;
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(async () => {
    await h?.stop();
    temp?.cleanup();
  });

  it('answers hook requests while git is still working, and finishes the turn', async () => {
    temp = makeTempDir();
    const repo = path.join(temp.dir, 'repo');
    const hashes = makeGitRepo(repo, 20);
    const started = path.join(temp.dir, 'git-started');
    const release = path.join(temp.dir, 'git-release');
    // A git that holds until the test lets it go: whatever the machine's speed, requests sent
    // meanwhile can only be answered if the worker's thread is not waiting for git.
    const heldGit = fakeGit(temp.dir, `touch '${started}'\nwhile [ ! -e '${release}' ]; do sleep 0.02; done\nexec git "$@"`);
    const reply = observationXml({ type: 'change', title: 'History', facts: hashes.map((hash, i) => `step ${i} is commit ${hash.slice(0, 12)}`) });
    h = await startHarness(createReplayProvider({ lines: [JSON.stringify({ text: reply }), JSON.stringify({ text: '' })] }), {
      commitVerifier: createGitCommitVerifier({ timeoutMs: 60_000, git: heldGit }),
    });
    await h.post('/api/sessions/observations', { session_id: 'verify', tool_use_id: 'v1', tool_name: 'Bash', tool_input: {}, tool_response: {}, cwd: repo });
    await waitFor(() => fs.existsSync(started), 20_000);
    for (let i = 0; i < 10; i += 1) {
      const res = await h.post('/api/sessions/observations', {
        session_id: 'other',
        tool_use_id: `o${i}`,
        tool_name: 'Read',
        tool_input: {},
        tool_response: {},
      });
      expect(res.status).toBe(202);
    }
    // Every request was answered and git has not been let go: the turn is still waiting for it.
    expect(h.worker.store.observations.recentForProject(repo, 5)).toHaveLength(0);
    fs.writeFileSync(release, '');
    await waitFor(() => h!.worker.store.observations.recentForProject(repo, 5).length === 1, 20_000);
    expect(h.worker.store.observations.recentForProject(repo, 1)[0]!.facts).toHaveLength(20);
  });
});
