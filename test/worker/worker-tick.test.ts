import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/log.js';
import { startWorkerTick, type WorkerTickDeps } from '../../src/worker/worker-tick.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

const temp = makeTempDir('mt-tick-');
afterAll(() => temp.cleanup());

/** A tick every 5 ms over deps that log what they were asked, in order. */
function ticking(overrides: Partial<WorkerTickDeps> & { nowMs?: number; lastHookMs?: number } = {}) {
  const calls: string[] = [];
  const dbFile = path.join(temp.dir, 'memtrace.db');
  fs.writeFileSync(dbFile, '');
  const tick = startWorkerTick({
    dbFile,
    tickMs: 5,
    clock: { now: () => overrides.nowMs ?? 10_000 },
    log: createMemoryLogger(),
    telemetry: { tick: () => calls.push('telemetry') },
    doors: { lastHookMs: () => overrides.lastHookMs ?? 0, mcp: { preload: () => calls.push('preload') }, replay: async () => calls.push('replay') },
    follow: { refresh: () => calls.push('follow') },
    loop: { rescan: () => calls.push('rescan') },
    contextFiles: { refreshChanged: async () => calls.push('context') },
    lifecycle: { tick: () => calls.push('lifecycle') },
    storeRemoved: () => calls.push('store removed'),
    ...overrides,
  });
  return { tick, calls, dbFile };
}

describe('the worker tick', () => {
  it('does each periodic step, and preloads the MCP SDK only once hooks have gone quiet', async () => {
    const quiet = ticking({ nowMs: 10_000, lastHookMs: 7_000 });
    await waitFor(() => quiet.calls.includes('lifecycle'), 2_000);
    quiet.tick.stop();
    expect(quiet.calls.slice(0, 7)).toEqual(['telemetry', 'preload', 'replay', 'follow', 'rescan', 'context', 'lifecycle']);

    const busy = ticking({ nowMs: 10_000, lastHookMs: 9_500 });
    await waitFor(() => busy.calls.includes('lifecycle'), 2_000);
    busy.tick.stop();
    expect(busy.calls).not.toContain('preload');
  });

  it('asks the worker to stop, and does nothing else, once its store file is gone', async () => {
    const gone = ticking();
    fs.rmSync(gone.dbFile);
    await waitFor(() => gone.calls.includes('store removed'), 2_000);
    gone.tick.stop();
    expect(new Set(gone.calls)).toEqual(new Set(['store removed']));
  });

  it('at shutdown, lets the context pass under way finish, then runs one more', async () => {
    const order: string[] = [];
    let release!: () => void;
    const first = new Promise<void>((resolve) => {
      release = resolve;
    });
    let passes = 0;
    const t = ticking({
      contextFiles: {
        refreshChanged: async () => {
          passes += 1;
          order.push(`pass ${passes} started`);
          if (passes === 1) await first;
          order.push(`pass ${passes} done`);
        },
      },
    });
    await waitFor(() => passes === 1, 2_000);
    t.tick.stop();
    const last = t.tick.lastContextRefresh();
    release();
    await last;
    expect(order).toEqual(['pass 1 started', 'pass 1 done', 'pass 2 started', 'pass 2 done']);
  });
});
