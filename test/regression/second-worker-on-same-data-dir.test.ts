import Database from 'better-sqlite3';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runWorkerToExit, startChildWorker, type ChildWorker } from '../support/child-worker.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { makeTempDir } from '../support/temp-dir.js';
import { toolEvent } from '../support/worker-harness.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Bug (issue 8, item 3): a second worker on the same data dir started, took back the first
 * one's claimed messages (sending them to the provider twice) and reported it as crashed.
 */
describe('one worker per data dir', () => {
  let fake: FakeLlm | undefined;
  let first: ChildWorker | undefined;
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(async () => {
    await first?.stop().catch(() => undefined);
    first = undefined;
    await fake?.close();
    temp?.cleanup();
  });

  it('refuses a second start with one line naming the running worker, and leaves its claimed messages alone', async () => {
    temp = makeTempDir();
    fake = await startFakeLlm('anthropic', { kind: 'delay', ms: 30_000, reply: { kind: 'text', text: '' } });
    const env = { MEMTRACE_DATA_DIR: temp.dir, MEMTRACE_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: fake.url, MEMTRACE_TELEMETRY: '0' };
    first = await startChildWorker(env);
    await fetch(`${first.url}/api/sessions/observations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...first.auth },
      body: JSON.stringify(toolEvent('s', 1)),
    });
    // The turn ends: its batch goes to the observer (and hangs there, claimed).
    await fetch(`${first.url}/api/sessions/summarize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...first.auth },
      body: JSON.stringify({ session_id: 's', last_assistant_message: 'done' }),
    });
    await waitFor(() => fake!.requests.length === 1);

    const second = await runWorkerToExit(env);
    expect(second.code).toBe(1);
    const lines = second.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`pid ${first.pid}`);
    expect(lines[0]).toContain(`port ${new URL(first.url).port}`);

    const db = new Database(path.join(temp.dir, 'memtrace.db'), { readonly: true });
    expect(db.prepare("SELECT count(*) AS n FROM queue WHERE status = 'claimed'").get()).toEqual({ n: 2 });
    db.close();
    expect(fake.requests).toHaveLength(1);
  });

  it('lets a new worker start at once after the first was killed with -9 (the OS released the lock)', async () => {
    temp = makeTempDir();
    const env = { MEMTRACE_DATA_DIR: temp.dir, MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '0' };
    first = await startChildWorker(env);
    await first.kill9();
    first = await startChildWorker(env);
    expect((await fetch(`${first.url}/health`)).status).toBe(200);
  });
});
