import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { limitBody, refuseAfterBody } from '../../src/http-edge/index.js';

/** A request body that counts how many bytes the server pulled from it. */
function countedBody(total: number, chunk = 1024): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      const size = Math.min(chunk, total - sent);
      sent += size;
      controller.enqueue(new Uint8Array(size).fill(0x78));
    },
  });
  return { stream, pulled: () => sent };
}

function appWith(maxBytes: number, discardBytes: number) {
  const app = new Hono();
  app.use('*', limitBody(maxBytes, { bytes: discardBytes, deadlineMs: 60_000 }));
  app.post('/', async (c) => c.json({ received: (await c.req.arrayBuffer()).byteLength }));
  return app;
}

const post = (app: Hono, path: string, body: ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
  app.request(path, { method: 'POST', body, headers, duplex: 'half' } as RequestInit);

describe('limitBody and refuseAfterBody', () => {
  it('hands a chunked body within the limit to the route whole', async () => {
    const { stream } = countedBody(4_000);
    const res = await post(appWith(4_096, 16_384), '/', stream);
    expect(await res.json()).toEqual({ received: 4_000 });
  });

  it('reads the rest of a body over the limit before it answers 413, and closes the connection', async () => {
    const { stream, pulled } = countedBody(10_000);
    const res = await post(appWith(4_096, 16_384), '/', stream);
    expect(res.status).toBe(413);
    expect(res.headers.get('connection')).toBe('close');
    expect(pulled()).toBe(10_000);
  });

  it('stops reading at the discard bound: a huge body cannot keep the server reading', async () => {
    const { stream, pulled } = countedBody(10_000_000);
    const res = await post(appWith(4_096, 16_384), '/', stream);
    expect(res.status).toBe(413);
    expect(pulled()).toBeLessThanOrEqual(16_384 + 2 * 1024);
  });

  it('does not read a body whose declared length is past the discard bound', async () => {
    const { stream, pulled } = countedBody(100_000);
    const res = await post(appWith(4_096, 16_384), '/', stream, { 'content-length': '100000' });
    expect(res.status).toBe(413);
    expect(pulled()).toBeLessThanOrEqual(2 * 1024);
  });

  it('reads a refused body to its end before an early refusal, and keeps the connection', async () => {
    const { stream, pulled } = countedBody(10_000);
    const app = new Hono();
    app.post('/', (c) => refuseAfterBody(c, c.json({ refused: true }, 401), { bytes: 16_384, deadlineMs: 60_000 }));
    const res = await post(app, '/', stream);
    expect(res.status).toBe(401);
    expect(pulled()).toBe(10_000);
    expect(res.headers.get('connection')).toBeNull();
  });
});
