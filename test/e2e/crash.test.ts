import Database from 'better-sqlite3';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCaptureServer, type CaptureServer } from '../support/capture-server.js';
import { startChildWorker, type ChildWorker } from '../support/child-worker.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { observationXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';
import { toolEvent } from '../support/worker-harness.js';
import { waitFor } from '../support/wait-for.js';

const post = (worker: ChildWorker, route: string, body: unknown) =>
  fetch(`${worker.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json', ...worker.auth }, body: JSON.stringify(body) });

describe('kill -9 while messages are claimed', () => {
  let fake: FakeLlm;
  let capture: CaptureServer;
  let temp: ReturnType<typeof makeTempDir>;
  let worker: ChildWorker | undefined;
  afterEach(async () => {
    await worker?.stop().catch(() => undefined);
    await fake?.close();
    await capture?.close();
    temp?.cleanup();
  });

  it('processes every accepted event exactly once after restart, and the rollups arrive complete', async () => {
    temp = makeTempDir();
    fake = await startFakeLlm('anthropic');
    capture = await startCaptureServer();
    const reply = { kind: 'text' as const, text: observationXml({ type: 'feature', title: 'observed' }), usage: { input: 100, output: 10 } };
    const env = {
      MEMTRACE_DATA_DIR: temp.dir,
      MEMTRACE_PROVIDER: 'anthropic',
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: fake.url,
      MEMTRACE_POSTHOG_KEY: 'phc_test',
      MEMTRACE_POSTHOG_HOST: capture.url,
    };
    // The first two calls answer at once; then every call hangs, so a batch sits claimed.
    fake.push(reply, reply);
    fake.setFallback({ kind: 'delay', ms: 60_000, reply: reply });
    worker = await startChildWorker(env);
    const sessions = ['a', 'b', 'c'];
    let accepted = 0;
    for (let i = 1; i <= 9; i += 1) {
      const res = await post(worker, '/api/sessions/observations', toolEvent(sessions[i % 3]!, i, { cwd: '/w/app' }));
      if (res.status === 202) accepted += 1;
    }
    expect(accepted).toBe(9);
    // Each session's turn ends: one observer call per session's batch of events.
    for (const s of sessions) expect((await post(worker, '/api/sessions/summarize', { session_id: s, last_assistant_message: 'done' })).status).toBe(202);
    await waitFor(() => fake.requests.length >= 3, 15_000);
    await worker.kill9();

    const db = new Database(path.join(temp.dir, 'memtrace.db'), { readonly: true });
    const claimed = (db.prepare("SELECT count(*) AS n FROM queue WHERE status = 'claimed'").get() as { n: number }).n;
    const openRollups = (db.prepare('SELECT count(*) AS n FROM telemetry_accumulators WHERE state IS NOT NULL').get() as { n: number }).n;
    db.close();
    expect(claimed).toBeGreaterThan(0);
    expect(openRollups).toBeGreaterThan(0);

    fake.setFallback(reply);
    worker = await startChildWorker(env);
    await waitFor(async () => ((await (await fetch(`${worker!.url}/health`)).json()) as { queue_depth: number }).queue_depth === 0, 15_000);
    for (const s of sessions) await post(worker, '/api/sessions/end', { session_id: s });
    await worker.stop();
    worker = undefined;

    const check = new Database(path.join(temp.dir, 'memtrace.db'), { readonly: true });
    const sources = (check.prepare('SELECT source_message_ids FROM observations').all() as Array<{ source_message_ids: string }>).flatMap(
      (r) => JSON.parse(r.source_message_ids) as number[],
    );
    check.close();
    expect(sources.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);

    await waitFor(() => capture.events.some((e) => e.event === 'worker_stopped'), 10_000);
    const rollups = capture.events.filter((e) => e.event === 'observer_turn_rollup');
    expect(rollups.some((e) => e.properties.rollup_reason === 'crash_recovery')).toBe(true);
    const parsed = rollups.reduce((n, e) => n + Number(e.properties.turns_parsed ?? 0), 0);
    expect(parsed).toBe(3);
    expect(rollups.reduce((n, e) => n + Number(e.properties.tool_events_observed ?? 0), 0)).toBe(9);
    expect(new Set(rollups.map((e) => e.uuid)).size).toBe(rollups.length);
    const started = capture.events.filter((e) => e.event === 'worker_started').map((e) => e.properties.previous_shutdown);
    expect(started).toContain('crash');
  });
});
