import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { ephemeralRange, freePort } from '../support/free-port.js';

// CI failed once with "port … is already in use by another program": the port a test had found free was taken, before
// the worker it started could bind it, by a kernel-assigned port elsewhere in the suite (a listen(0) or an outgoing connection).
describe('freePort', () => {
  it('hands out a port the kernel never assigns on its own, that can still be bound', async () => {
    const { low, high } = ephemeralRange();
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      expect(port < low || port > high, `port ${port} in ${low}–${high}`).toBe(true);
      const server = net.createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', resolve);
      });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
