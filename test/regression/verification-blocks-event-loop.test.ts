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
 * of 40 process starts. Now one git process per turn, awaited, never blocking requests.
 */
describe('checking 20 claimed commits against a slow git', () => {
  let h: Harness | undefined;
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(async () => {
    await h?.stop();
    temp?.cleanup();
  });

  it('leaves hook requests answering at their usual pace, and finishes the turn', async () => {
    temp = makeTempDir();
    const repo = path.join(temp.dir, 'repo');
    const hashes = makeGitRepo(repo, 20);
    const slowGit = fakeGit(temp.dir, 'sleep 1.5\nexec git "$@"');
    const reply = observationXml({ type: 'change', title: 'History', facts: hashes.map((hash, i) => `step ${i} is commit ${hash.slice(0, 12)}`) });
    h = await startHarness(createReplayProvider({ lines: [JSON.stringify({ text: reply }), JSON.stringify({ text: '' })] }), { commitVerifier: createGitCommitVerifier({ timeoutMs: 10_000, git: slowGit }) });
    const started = Date.now();
    await h.post('/api/sessions/observations', { session_id: 'verify', tool_use_id: 'v1', tool_name: 'Bash', tool_input: {}, tool_response: {}, cwd: repo });
    const latencies: number[] = [];
    while (Date.now() - started < 1_200) {
      const t = performance.now();
      const res = await h.post('/api/sessions/observations', { session_id: 'other', tool_use_id: `o${latencies.length}`, tool_name: 'Read', tool_input: {}, tool_response: {} });
      expect(res.status).toBe(202);
      latencies.push(performance.now() - t);
    }
    // A blocked event loop would hold a request for the whole 1.5 s git call.
    expect(latencies.length).toBeGreaterThan(5);
    expect(Math.max(...latencies)).toBeLessThan(700);
    await waitFor(() => h!.worker.store.observations.recentForProject(repo, 5).length === 1, 10_000);
    expect(h.worker.store.observations.recentForProject(repo, 1)[0]!.facts).toHaveLength(20);
  });
});
