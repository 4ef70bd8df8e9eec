/**
 * Issue 17, item 3: the hook sent the install's token and every event to whatever listened on the
 * worker's port — any local process that bound 37877 first, or after the worker stopped. Now a
 * hook speaks only to the Unix socket inside the data dir (0700: only its owner can create it);
 * a stranger on the port receives not one byte, and the event is spooled, not lost.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listSpool } from '../../src/data-dir/index.js';
import { hookCommand, runHookProcess, type HookPath } from '../support/hook-process.js';
import { buildNativeForwarderInto } from '../support/native-forwarder.js';
import { holdWorkerStarts } from '../support/no-worker-starts.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

const fixture = (name: string) => fs.readFileSync(path.join('test/fixtures/claude-code/hooks', `${name}.json`));

describe('a stranger listening on the worker port', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let stranger: net.Server;
  afterEach(async () => {
    await new Promise((r) => stranger.close(r));
    temp.cleanup();
  });

  async function listenAsStranger() {
    const received: Buffer[] = [];
    let connections = 0;
    stranger = net.createServer((socket) => {
      connections += 1;
      socket.on('data', (c: Buffer) => received.push(c));
      socket.on('error', () => undefined);
    });
    await new Promise<void>((r) => stranger.listen(0, '127.0.0.1', () => r()));
    const port = (stranger.address() as net.AddressInfo).port;
    return { port, connections: () => connections, bytes: () => Buffer.concat(received).length };
  }

  it.each<HookPath>(['forwarder', 'forwarder-curl', 'forwarder-native', 'installed', 'node'])(
    'gets no connection and no byte from any hook, and every event is spooled (%s)',
    async (via) => {
      temp = makeTempDir();
      const dataDir = path.join(temp.dir, 'data');
      const { port, connections, bytes } = await listenAsStranger();
      // The token file exists (a worker ran here before): it must not leave either.
      fs.mkdirSync(dataDir, { mode: 0o700 });
      // No worker runs here, and no hook may start one (it would take the spooled events).
      holdWorkerStarts(dataDir);
      if (via === 'forwarder-native' || via === 'installed') buildNativeForwarderInto(dataDir);
      fs.writeFileSync(path.join(dataDir, 'auth-token'), 'secret-token-of-this-install\n', { mode: 0o600 });
      const env = { MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PORT: String(port), HOME: temp.dir };
      const events: Array<[string, string]> = [
        ['user-prompt-submit', 'user-prompt-submit'],
        ['post-tool-use', 'post-tool-use-bash'],
        ['stop', 'stop'],
        ['session-end', 'session-end'],
      ];
      for (const [event, file] of events) expect((await runHookProcess(hookCommand(via, 'claude-code', event, dataDir), fixture(file), { env })).code).toBe(0);
      // The perl forwarder hands each event to a Node hook in the background.
      await waitFor(() => listSpool(dataDir).length >= events.length);
      expect(connections()).toBe(0);
      expect(bytes()).toBe(0);
      expect(listSpool(dataDir)).toHaveLength(events.length);
    },
  );

  it('refuses to write an event into a data dir another user owns', async () => {
    temp = makeTempDir();
    const { port, connections } = await listenAsStranger();
    const dataDir = path.join(temp.dir, 'theirs');
    fs.mkdirSync(dataDir, { mode: 0o777 });
    fs.chmodSync(dataDir, 0o777);
    fs.chownSync(dataDir, 65534, 65534);
    const env = { MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PORT: String(port), HOME: temp.dir };
    const run = await runHookProcess(hookCommand('forwarder', 'claude-code', 'post-tool-use'), fixture('post-tool-use-bash'), { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('owned by another user');
    expect(fs.readdirSync(dataDir)).toEqual([]);
    expect(connections()).toBe(0);
  });

  it('never runs a forwarder program it finds in a data dir another user owns', async () => {
    temp = makeTempDir();
    const { port } = await listenAsStranger();
    const dataDir = path.join(temp.dir, 'theirs');
    const ran = path.join(temp.dir, 'their-program-ran');
    // Their program, under the name our forwarder would look for.
    const ours = buildNativeForwarderInto(path.join(temp.dir, 'ours'));
    fs.mkdirSync(path.join(dataDir, 'bin'), { recursive: true });
    const theirs = path.join(dataDir, 'bin', path.basename(ours));
    fs.writeFileSync(theirs, `#!/bin/sh\ntouch ${ran}\n`, { mode: 0o755 });
    for (const entry of [dataDir, path.join(dataDir, 'bin'), theirs]) fs.chownSync(entry, 65534, 65534);
    const env = { MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PORT: String(port), HOME: temp.dir };
    const run = await runHookProcess(hookCommand('forwarder', 'claude-code', 'post-tool-use'), fixture('post-tool-use-bash'), { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('owned by another user');
    expect(fs.existsSync(ran)).toBe(false);
  });
});
