import path from 'node:path';
import { silentLogger } from '../src/log.js';
import { buildObservationPrompt } from '../src/observer/prompts.js';
import { openStore } from '../src/store/index.js';
import { startCheckpointer } from '../src/store/checkpointer.js';
import { createTelemetry } from '../src/telemetry/runtime.js';
import { processTurn } from '../src/worker/turn-processor.js';
import { realisticCorpus } from './corpus.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { summarize } from './stats.js';

export const name = 'turn-overhead';

/** Everything of an observer turn but the provider call: claim, prompt build, parse, store + confirm + telemetry fold. */
export async function run(): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-bench-');
  const file = path.join(temp.dir, 'memtrace.db');
  // As the worker runs it: checkpoints on a background thread, not inside a turn's commit.
  const store = openStore(file, { backgroundCheckpoints: true });
  const checkpointer = startCheckpointer(file, { intervalMs: 2_000, onError: () => undefined });
  const telemetry = createTelemetry({ dataDir: temp.dir, env: {}, appVersion: '0.1.0', provider: 'anthropic' }, { db: store.db, clock: { now: () => 0 }, log: silentLogger, stderr: { write: () => true }, sink: null });
  try {
    const replies = realisticCorpus(3_000, 11);
    const toolResponse = { content: 'line of a source file\n'.repeat(400) };
    const samples: number[] = [];
    for (let i = 0; i < replies.length; i += 1) {
      store.queue.enqueue({ sessionId: `s${i % 4}`, kind: 'observation', toolUseId: `t${i}`, payload: { tool_name: 'Read', tool_input: { file_path: 'a.ts' }, tool_response: toolResponse, cwd: null, at: i }, nowMs: i });
      const started = performance.now();
      const message = store.queue.claimNext(`s${i % 4}`, i)!;
      const payload = message.payload as { tool_name: string; tool_input: unknown; tool_response: unknown; at: number };
      buildObservationPrompt({ toolName: payload.tool_name, toolInput: payload.tool_input, toolResponse: payload.tool_response, cwd: null, atMs: payload.at }, { project: 'p', userPrompt: 'fix it' });
      processTurn(
        { store, log: silentLogger, onCommit: (turn) => telemetry.recordTurn(turn, i) },
        { message, session: { project: 'p' }, reply: { text: replies[i]!, usage: { inputTokens: 1500, outputTokens: 200 }, costUsd: 0.001, model: 'claude-haiku-4-5' }, provider: 'anthropic', promptVersion: 'obs-v1', durationMs: 900, nowMs: i },
      );
      if (i >= 300) samples.push(performance.now() - started);
    }
    return { turns: samples.length, reply_mix: '1-3 observations of 0.5-3 KB, 10% prose, 10% empty', per_turn: summarize(samples), target_p99_ms: 2 };
  } finally {
    await checkpointer.stop();
    store.close();
    temp.cleanup();
  }
}
