import path from 'node:path';
import { openStore } from '../src/store/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { summarize } from './stats.js';
import type { QueuedEvent } from '../src/hosts/index.js';

export const name = 'queue';

export async function run(): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-bench-');
  const store = openStore(path.join(temp.dir, 'memtrace.db'));
  try {
    const payload: QueuedEvent = {
      kind: 'post_tool_use',
      session_id: 's',
      at: 0,
      tool_name: 'Edit',
      tool_input: { file_path: 'src/a.ts', old_string: 'x'.repeat(200) },
      tool_response: 'ok'.repeat(200),
    };
    const cycle = (i: number) => {
      const { id } = store.queue.enqueue({ sessionId: 's', kind: 'observation', toolUseId: `tu-${i}`, payload, nowMs: i });
      const claimed = store.queue.claimNext('s', i);
      if (claimed?.id !== id) throw new Error('claimed the wrong message');
      store.queue.confirm(id);
    };
    for (let i = 0; i < 500; i += 1) cycle(i);
    const n = 10_000;
    const started = performance.now();
    for (let i = 500; i < 500 + n; i += 1) cycle(i);
    const cyclesPerS = n / ((performance.now() - started) / 1000);

    const enqueueSamples: number[] = [];
    for (let i = 0; i < 5_000; i += 1) {
      const t = performance.now();
      store.queue.enqueue({ sessionId: 's2', kind: 'observation', toolUseId: `e-${i}`, payload, nowMs: i });
      enqueueSamples.push(performance.now() - t);
    }
    return {
      journal: 'wal',
      synchronous: 'normal',
      cycles: n,
      cycles_per_s: Math.round(cyclesPerS),
      enqueue: summarize(enqueueSamples),
      target_cycles_per_s: 5_000,
    };
  } finally {
    store.close();
    temp.cleanup();
  }
}
