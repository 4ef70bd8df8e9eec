import path from 'node:path';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { BRIDGES, BridgeProcess, type FakeWorker, INITIALIZE, startFakeWorker } from '../support/mcp-bridge.js';
import { makeTempDir } from '../support/temp-dir.js';

// Under load, test/worker/mcp-door.test.ts failed now and then: the worker stopped, the host's next
// request came, and the bridge, finding both ready at once, read the request first, sent it to the
// closed socket and owed it "memtrace's worker went away". The bridges now hear the worker first,
// so a request the worker never saw goes to the Node server, unread and whole.

describe.each(BRIDGES)('the $via MCP bridge, when the worker stops just before a request', ({ via, prepare }) => {
  let temp: ReturnType<typeof makeTempDir>;
  let fake: FakeWorker | null = null;
  let bridge: BridgeProcess | null = null;
  afterEach(async () => {
    bridge?.kill();
    await bridge?.exited;
    await fake?.close();
    temp.cleanup();
  });

  it('gives the request to the Node server, not an error', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    let worker: Duplex | null = null;
    fake = await startFakeWorker(dataDir, (stream) => {
      worker = stream;
      stream.once('data', () =>
        stream.write(
          `${JSON.stringify({ jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'memtrace', version: '0' } } })}\n`,
        ),
      );
    });
    prepare(dataDir);
    const b = new BridgeProcess(via, { HOME: temp.dir, MEMTRACE_DATA_DIR: dataDir });
    bridge = b;
    await b.send(INITIALIZE);
    expect((await b.message()).result.serverInfo.name).toBe('memtrace');
    expect(fake.upgrades).toBe(1);
    // As on a loaded machine: the worker stops, and the host's next request is there before the
    // bridge runs again, so both wait for it at once.
    const pid = b.child.pid!;
    process.kill(pid, 'SIGSTOP');
    try {
      const stream = worker as unknown as Duplex;
      const closed = new Promise((resolve) => stream.once('close', resolve));
      stream.destroy();
      await closed;
      await b.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const answer = await b.message();
    expect(answer.error).toBeUndefined();
    expect(answer.id).toBe(1);
    expect(answer.result.tools).toHaveLength(3);
  });
});
