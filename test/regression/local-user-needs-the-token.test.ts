import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readAuthToken } from '../../src/data-dir/index.js';
import { createReplayProvider } from '../../src/providers/index.js';
import { startChildWorker, type ChildWorker } from '../support/child-worker.js';
import { rawRequest } from '../support/raw-http.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';

/**
 * Bug (issue 8, item 2): loopback is shared by every account on a machine, and the API took
 * anyone's calls; DATA_DIR and its files followed the umask.
 */
describe('another local user', () => {
  let h: Harness | undefined;
  let child: ChildWorker | undefined;
  let temp: ReturnType<typeof makeTempDir> | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
    await child?.stop();
    child = undefined;
    temp?.cleanup();
  });

  it('gets 401 on every /api route without the install token, and nothing is stored', async () => {
    h = await startHarness(createReplayProvider({ lines: ['{"text":""}'] }));
    const host = `127.0.0.1:${h.worker.port}`;
    const posts = ['/api/sessions/init', '/api/sessions/observations', '/api/sessions/summarize', '/api/sessions/end'];
    for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${h.token}`, `Bearer ${h.token}x`]) {
      const headers: Record<string, string> = { host, 'content-type': 'application/json', ...(authorization ? { authorization } : {}) };
      for (const route of posts) {
        const res = await rawRequest(`${h.worker.url}${route}`, { method: 'POST', headers, body: JSON.stringify(toolEvent('intruder', 1)) });
        expect(res.status, `${route} with ${authorization}`).toBe(401);
        expect(JSON.parse(res.body).error.code).toBe('unauthorized');
      }
      for (const route of ['/api/context/inject?budget_tokens=500', '/api/telemetry/status']) {
        expect((await rawRequest(`${h.worker.url}${route}`, { headers })).status).toBe(401);
      }
    }
    expect(h.worker.store.queue.depth()).toBe(0);
    expect(h.worker.store.sessions.get('intruder')).toBeNull();
  });

  it('can read /health, which says nothing private', async () => {
    h = await startHarness(createReplayProvider({ lines: ['{"text":""}'] }));
    await h.post('/api/sessions/observations', toolEvent('secret-session-id', 1, { cwd: '/home/someone/private-repo' }));
    const res = await rawRequest(`${h.worker.url}/health`, { headers: { host: `127.0.0.1:${h.worker.port}` } });
    expect(res.status).toBe(200);
    expect(Object.keys(JSON.parse(res.body)).sort()).toEqual([
      'degraded',
      'hooks',
      'in_flight',
      'in_flight_age_ms',
      'observer',
      'observing',
      'provider',
      'queue_depth',
      'status',
      'store',
      'version',
    ]);
    for (const secret of [h.token, h.dataDir, 'secret-session-id', 'private-repo']) expect(res.body).not.toContain(secret);
  });

  it('cannot read the data dir: 0700, and every file in it 0600 under umask 000', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    child = await startChildWorker({ MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '1' }, { umask: '000' });
    const res = await fetch(`${child.url}/api/sessions/observations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...child.auth },
      body: JSON.stringify(toolEvent('s', 1)),
    });
    expect(res.status).toBe(202);
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    const files = ['memtrace.db', 'memtrace.db-wal', 'memtrace.db-shm', 'auth-token', 'telemetry.json', 'worker.lock', 'worker.json', 'logs/worker.log'];
    for (const file of files) expect((fs.statSync(path.join(dataDir, file)).mode & 0o777).toString(8), file).toBe('600');
    expect(fs.statSync(path.join(dataDir, 'logs')).mode & 0o777).toBe(0o700);
    expect(readAuthToken(dataDir)).toMatch(/^[A-Za-z0-9_-]{40,}$/);
  });
});
