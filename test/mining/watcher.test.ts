import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProjectResolver } from '../../src/worker/project-of.js';
import { silentLogger } from '../../src/log.js';
import { openStore, type Store } from '../../src/store/index.js';
import { startTranscriptWatcher, type TranscriptWatcher } from '../../src/mining/index.js';
import { createTelemetry, type Telemetry } from '../../src/telemetry/runtime.js';
import { COUNTER_WINDOW_MS } from '../../src/telemetry/index.js';
import { makeTempDir } from '../support/temp-dir.js';
import { TranscriptBuilder } from '../support/transcripts.js';

/** Projects by repository root, as the worker keys them. */
const projectOf = createProjectResolver();

const T = Date.UTC(2025, 6, 2, 9, 0, 0);
const MIN = 60_000;

describe('transcript watcher', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: Store;
  let telemetry: Telemetry;
  let now: number;
  let scheduled: Array<{ fn: () => void; ms: number; cancelled: boolean }>;
  let woke: string[];
  let watcher: TranscriptWatcher | null;
  let projects: string;

  beforeEach(() => {
    temp = makeTempDir();
    store = openStore(path.join(temp.dir, 'memtrace.db'));
    now = T;
    scheduled = [];
    woke = [];
    watcher = null;
    telemetry = createTelemetry(
      { dataDir: temp.dir, env: { MEMTRACE_TELEMETRY: '1' }, appVersion: '0.2.0', provider: 'none' },
      { db: store.db, clock: { now: () => now }, log: silentLogger, stderr: { write: () => true }, sink: null },
    );
    projects = path.join(temp.dir, 'projects');
    fs.mkdirSync(path.join(projects, '-work-app'), { recursive: true });
  });
  afterEach(async () => {
    await watcher?.stop();
    store.close();
    temp.cleanup();
  });

  function start(): TranscriptWatcher {
    watcher = startTranscriptWatcher(
      { dirs: [projects], intervalMs: MIN, idleMs: 2 * MIN, firstPassDelayMs: 5_000, catchUpDelayMs: 15_000 },
      {
        store,
        clock: { now: () => now },
        log: silentLogger,
        telemetry,
        wake: (id) => woke.push(id),
        projectOf,
        timers: {
          setTimeout(fn, ms) {
            const entry = { fn, ms, cancelled: false };
            scheduled.push(entry);
            return { cancel: () => (entry.cancelled = true) };
          },
        },
      },
    );
    return watcher;
  }

  function transcript(ageMs: number): { t: TranscriptBuilder; file: string; id: string } {
    const t = new TranscriptBuilder();
    t.prompt('go');
    const id = t.call('Read', { file_path: 'a.ts' });
    const file = path.join(projects, '-work-app', `${t.sessionId}.jsonl`);
    t.writeTo(file);
    const mtime = new Date(now - ageMs);
    fs.utimesSync(file, mtime, mtime);
    return { t, file, id };
  }

  it('checks every 60 s, mines only files idle for 2 minutes, wakes the loop and counts a mining_rollup', async () => {
    const idle = transcript(5 * MIN);
    const busy = transcript(30_000);
    start();
    expect(scheduled.map((s) => s.ms)).toEqual([5_000]);

    scheduled[0]!.fn(); // the timer fires: one pass, then the next is scheduled
    await waitForScheduled(2);
    expect(scheduled[1]!.ms).toBe(MIN);
    expect(store.queue.hasSeen(idle.t.sessionId, idle.id)).toBe(true);
    expect(store.queue.hasSeen(busy.t.sessionId, busy.id)).toBe(false);
    expect(woke).toContain(idle.t.sessionId);

    // Two minutes later the other file is idle too; the first is unchanged and not read again.
    now += 2 * MIN;
    const report = await watcher!.runPass();
    expect(report?.byOutcome).toMatchObject({ mined: 1, unchanged: 1, busy: 0 });
    expect(store.queue.hasSeen(busy.t.sessionId, busy.id)).toBe(true);

    telemetry.tick(now + COUNTER_WINDOW_MS);
    const rollups = telemetry.preview(50).filter((e) => e.event === 'mining_rollup');
    expect(rollups).toHaveLength(1);
    expect(rollups[0]!.properties).toMatchObject({
      trigger: 'watch',
      files_mined: 2,
      segments_mined: 2,
      events_queued: 2,
      segments_failed: 0,
      backoff_skips: 0,
      corrupt_lines: 0,
    });
    expect(rollups[0]!.properties).not.toHaveProperty('path');

    // Nothing changed: the pass sends nothing.
    now += MIN;
    const quiet = await watcher!.runPass();
    expect(quiet?.byOutcome.unchanged).toBe(2);
    telemetry.tick(now + 2 * COUNTER_WINDOW_MS);
    expect(telemetry.preview(50).filter((e) => e.event === 'mining_rollup')).toHaveLength(1);
  });

  it('watches a transcript the hooks reported outside the folders', async () => {
    const t = new TranscriptBuilder();
    t.prompt('go');
    const id = t.call('Bash', { command: 'ls' });
    const elsewhere = path.join(temp.dir, 'elsewhere', `${t.sessionId}.jsonl`);
    fs.mkdirSync(path.dirname(elsewhere));
    t.writeTo(elsewhere);
    fs.utimesSync(elsewhere, new Date(now - 10 * MIN), new Date(now - 10 * MIN));
    start().reportTranscript(t.sessionId, elsewhere);
    await watcher!.runPass();
    expect(store.queue.hasSeen(t.sessionId, id)).toBe(true);
  });

  it('survives a missing folder and a closed store without throwing, and stops cleanly', async () => {
    fs.rmSync(projects, { recursive: true });
    start();
    const report = await watcher!.runPass();
    expect(report?.files).toBe(0);
    fs.mkdirSync(path.join(projects, '-work-app'), { recursive: true });
    transcript(10 * MIN);
    store.close();
    const broken = await watcher!.runPass();
    expect(broken?.byOutcome.failed).toBe(1);
    expect(broken?.failures[0]?.error).toMatch(/^store: /);
    store = openStore(path.join(temp.dir, 'memtrace.db'));
    await watcher!.stop();
    expect(scheduled.every((s) => s.cancelled)).toBe(true);
    expect(await watcher!.runPass()).toBeNull();
  });

  async function waitForScheduled(n: number): Promise<void> {
    for (let i = 0; i < 200 && scheduled.length < n; i += 1) await new Promise((r) => setTimeout(r, 5));
    expect(scheduled.length).toBe(n);
  }
});
