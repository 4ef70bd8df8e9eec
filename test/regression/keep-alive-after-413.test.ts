import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReplayProvider } from '../../src/providers/index.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';

/** Bug (issue 8, item 8): after a 413 the next request on the same keep-alive connection was reset. */
describe('a keep-alive client after a 413', () => {
  let h: Harness;
  let agent: http.Agent;
  beforeAll(async () => {
    h = await startHarness(createReplayProvider({ lines: ['{"text":""}'] }));
    agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  });
  afterAll(async () => {
    agent.destroy();
    await h.stop();
  });

  function post(body: string, chunked = false): Promise<{ status: number; connection: string | undefined }> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { 'content-type': 'application/json', authorization: `Bearer ${h.token}` };
      if (!chunked) headers['content-length'] = Buffer.byteLength(body);
      const req = http.request(`${h.worker.url}/api/sessions/observations`, { method: 'POST', agent, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  it.each([false, true])('gets the 413 and then a normal answer on its next request (chunked: %s)', async (chunked) => {
    for (let i = 0; i < 3; i += 1) {
      const big = await post(JSON.stringify({ ...toolEvent('ka', 100 + i), tool_response: 'x'.repeat(2 * 1024 * 1024) }), chunked);
      expect(big).toEqual({ status: 413, connection: 'close' });
      const next = await post(JSON.stringify(toolEvent('ka', i + (chunked ? 10 : 0))));
      expect(next.status).toBe(202);
    }
  });
});
