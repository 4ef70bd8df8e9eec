import path from 'node:path';
import { silentLogger } from '../src/log.js';
import { createReplayProvider } from '../src/providers/index.js';
import { openStore } from '../src/store/index.js';
import { startCheckpointer } from '../src/store/checkpointer.js';
import { createTelemetry } from '../src/telemetry/runtime.js';
import { createGitCommitVerifier } from '../src/worker/commit-verifier.js';
import { createRunTurn } from '../src/worker/observer-turn.js';
import { realisticCorpus } from './corpus.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { summarize } from './stats.js';

export const name = 'turn-overhead';

/**
 * Everything of an observer turn but the provider call, through the worker's own runTurn: claim,
 * prompt build, parse, claim checks (the corpus claims no commits, so git is not spawned), file
 * evidence, store + confirm + telemetry fold. The provider is an in-memory replay.
 */
export async function run(): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-bench-');
  const file = path.join(temp.dir, 'memtrace.db');
  // As the worker runs it: checkpoints on a background thread, not inside a turn's commit.
  const store = openStore(file, { backgroundCheckpoints: true });
  const checkpointer = startCheckpointer(file, { onError: () => undefined });
  const telemetry = createTelemetry(
    { dataDir: temp.dir, env: {}, appVersion: '0.1.0', provider: 'anthropic' },
    { db: store.db, clock: { now: () => 0 }, log: silentLogger, stderr: { write: () => true }, sink: null },
  );
  try {
    const replies = realisticCorpus(3_000, 11);
    const provider = createReplayProvider({
      lines: replies.map((text) => JSON.stringify({ text, usage: { input_tokens: 1500, output_tokens: 200 }, cost_usd: 0.001, model: 'claude-haiku-4-5' })),
    });
    let now = 0;
    const runTurn = createRunTurn({
      store,
      clock: { now: () => now },
      log: silentLogger,
      verifier: createGitCommitVerifier({ timeoutMs: 2_000 }),
      recordTurn: (turn, nowMs) => telemetry.recordTurn(turn, nowMs),
    });
    const toolResponse = { content: 'line of a source file\n'.repeat(400) };
    const signal = new AbortController().signal;
    const samples: number[] = [];
    for (let i = 0; i < replies.length; i += 1) {
      now = i;
      const sessionId = `s${i % 4}`;
      if (i < 4) store.sessions.init({ sessionId, project: '/work/app', prompt: 'fix it', promptId: 'p1', cwd: '/work/app', nowMs: i });
      store.queue.enqueue({
        sessionId,
        kind: 'observation',
        toolUseId: `t${i}`,
        payload: {
          kind: 'post_tool_use',
          session_id: sessionId,
          tool_name: 'Edit',
          tool_input: { file_path: `/work/app/src/f${i % 50}.ts`, old_string: 'a', new_string: 'b' },
          tool_response: toolResponse,
          cwd: '/work/app',
          at: i,
        },
        nowMs: i,
      });
      const started = performance.now();
      const message = store.queue.claimNext(sessionId, i)!;
      await runTurn({ sessionId, messages: [message] }, provider, signal);
      if (i >= 300) samples.push(performance.now() - started);
    }
    return { turns: samples.length, reply_mix: '1-3 observations of 0.5-3 KB, 10% prose, 10% empty', per_turn: summarize(samples), target_p99_ms: 2 };
  } finally {
    await checkpointer.stop();
    store.close();
    temp.cleanup();
  }
}
