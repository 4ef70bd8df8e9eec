import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { createReplayProvider } from '../src/providers/index.js';
import { createGitCommitVerifier } from '../src/worker/commit-verifier.js';
import { makeGitRepo } from '../test/support/git-repo.js';
import { observationXml } from '../test/support/replies.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { startHarness, toolEvent } from '../test/support/worker-harness.js';
import { createPoster, postAtRate } from './http-poster.js';
import { roundedPercentile, summarize } from './stats.js';

export const name = 'verify';

const REPEATS = 15;

/**
 * Claim verification per turn with 0, 1 and 20 hashes: one `git cat-file --batch-check` per turn
 * (memtrace) against one synchronous `git cat-file -e` per hash plus the repository probe (the
 * first version), same repository, same run; then hook-request latency while turns verify.
 */
export async function run(): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-verify-bench-');
  try {
    const repo = path.join(temp.dir, 'repo');
    const hashes = makeGitRepo(repo, 20).map((h) => h.slice(0, 12));
    const perTurn: Record<string, unknown> = {};
    for (const n of [0, 1, 20]) {
      const batch: number[] = [];
      const perHash: number[] = [];
      for (let i = 0; i < REPEATS; i += 1) {
        const verifier = createGitCommitVerifier({ timeoutMs: 10_000 }); // fresh: no cache
        let t = performance.now();
        await verifier.check(repo, hashes.slice(0, n));
        batch.push(performance.now() - t);
        t = performance.now();
        if (n > 0) spawnSync('git', ['rev-parse', '--git-dir'], { cwd: repo, stdio: 'ignore' });
        for (const hash of hashes.slice(0, n)) spawnSync('git', ['cat-file', '-e', `${hash}^{commit}`], { cwd: repo, stdio: 'ignore' });
        perHash.push(performance.now() - t);
      }
      const med = (xs: number[]) => roundedPercentile(xs, 50, 2);
      perTurn[`hashes_${n}`] = {
        batch_median_ms: med(batch),
        per_hash_median_ms: med(perHash),
        per_hash_blocks_event_loop: true,
        ratio_per_hash_vs_batch: n > 0 ? Math.round((med(perHash) / med(batch)) * 100) / 100 : null,
      };
    }
    return { per_turn: perTurn, ingest_while_verifying: await ingestWhileVerifying(repo, hashes) };
  } finally {
    temp.cleanup();
  }
}

/** POSTs at 200/s for 5 s while every observer turn verifies 20 hashes. */
async function ingestWhileVerifying(repo: string, hashes: string[]): Promise<Record<string, unknown>> {
  const reply = JSON.stringify({ text: observationXml({ type: 'change', title: 'history', facts: hashes.map((h) => `commit ${h}`) }) });
  const h = await startHarness(createReplayProvider({ lines: [reply] }), { loop: { concurrency: 2 } });
  const poster = createPoster(`${h.worker.url}/api/sessions/observations`, h.token);
  try {
    const samples = await postAtRate(poster, 1_000, 200, (i) => toolEvent(`s${i % 4}`, i, { cwd: repo }));
    const verified = h.worker.store.observations.count();
    return { rate_per_s: 200, seconds: 5, latency: summarize(samples), turns_verified_meanwhile: verified };
  } finally {
    poster.close();
    await h.stop();
  }
}
