import net from 'node:net';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { listenLoopbackOrAny, type ListeningServer } from '../../src/http-edge/index.js';

describe('the HTTP API’s port when another program holds it', () => {
  let holder: net.Server | null = null;
  let server: ListeningServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
    await new Promise((resolve) => (holder ? holder.close(resolve) : resolve(undefined)));
    holder = null;
  });
  const hold = () =>
    new Promise<number>((resolve) => {
      holder = net.createServer().listen(0, '127.0.0.1', () => resolve((holder!.address() as net.AddressInfo).port));
    });
  const app = new Hono().get('/', (c) => c.text('here'));

  it('takes a free port when the taken one was only the default, and says which it wanted', async () => {
    const taken = await hold();
    const listening = await listenLoopbackOrAny(app, taken, true);
    server = listening;
    expect(listening.port).not.toBe(taken);
    expect(listening.wanted).toBe(taken);
    expect(await (await fetch(`${listening.url}/`)).text()).toBe('here');
  });

  it('refuses a taken port the user chose', async () => {
    const taken = await hold();
    await expect(listenLoopbackOrAny(app, taken, false)).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });

  it('takes the default port when it is free, and wants nothing else', async () => {
    const free = await hold();
    await new Promise((resolve) => holder!.close(resolve));
    holder = null;
    const listening = await listenLoopbackOrAny(app, free, true);
    server = listening;
    expect({ port: listening.port, wanted: listening.wanted }).toEqual({ port: free, wanted: null });
  });
});
