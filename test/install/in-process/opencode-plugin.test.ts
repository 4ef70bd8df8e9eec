/**
 * memtrace's OpenCode plugin (src/install/in-process/opencode-plugin.ts) driven with the real
 * event stream of an OpenCode 1.18.33 run, in this Node process, against a real worker on its
 * socket; and with no worker, or one that never answers. The real OpenCode runs it in
 * test/e2e/host-opencode.test.ts.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { MEMTRACE_BIN } from '../../../src/cli/memtrace-bin.js';
import { listSpool } from '../../../src/data-dir/index.js';
import { readSpooled } from '../../../src/data-dir/spool.js';
import { openCodePlugin } from '../../../src/install/in-process/opencode-plugin.js';
import { noProvider } from '../../../src/providers/index.js';
import { captureIO } from '../../support/cli-io.js';
import { capturedStream, replayOpenCode, workerReplayed, storedSession } from '../../support/in-process-fixtures.js';
import { addObservation } from '../../support/memory-fixtures.js';
import { makeTempDir } from '../../support/temp-dir.js';
import { waitFor } from '../../support/wait-for.js';
import { startHarness, type Harness } from '../../support/worker-harness.js';

const SESSION = 'ses_ddbb1cf0affe5QmGFXt8o1DXVb';
const installed = { memtraceBin: MEMTRACE_BIN, node: process.execPath, version: 'test' };

let temp: ReturnType<typeof makeTempDir>;
let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
  temp?.cleanup();
});

function setUp() {
  temp = makeTempDir('mt-oc-');
  const project = path.join(temp.dir, 'proj');
  const home = path.join(temp.dir, 'home');
  fs.mkdirSync(project);
  fs.mkdirSync(home);
  const dataDir = path.join(temp.dir, 'data');
  // The host's environment as the plugin sees it: its HOME (OpenCode's store is under it), memtrace's data dir.
  const env = {
    HOME: home,
    PATH: process.env.PATH,
    MEMTRACE_DATA_DIR: dataDir,
    MEMTRACE_PORT: '0',
    MEMTRACE_TELEMETRY: '0',
    MEMTRACE_PROVIDER: 'none',
    // A loaded machine may answer slower than the 2 s budget: these tests are about what is stored.
    MEMTRACE_HOOK_TIMEOUT_MS: '30000',
  };
  return { project, dataDir, env };
}

async function shown(dataDir: string, sessionId: string) {
  const stored = await storedSession(dataDir, sessionId);
  expect(stored, `no session ${sessionId}`).not.toBeNull();
  return stored;
}

describe('memtrace’s OpenCode plugin', () => {
  it('stores a captured OpenCode run once: every tool call (the one that threw and the failing bash as failures), the prompt, the final text and the end', async () => {
    const { project, dataDir, env } = setUp();
    h = await startHarness(noProvider(), { dataDir });
    const hooks = openCodePlugin(installed, { directory: project }, undefined, env);
    await replayOpenCode(hooks);

    const shownSession = await shown(dataDir, SESSION);
    expect(shownSession.session).toMatchObject({
      platform: 'opencode',
      status: 'ended',
      endReason: 'dispose',
      cwd: project,
      transcriptPath: `${path.join(env.HOME, '.local/share/opencode/opencode.db')}#${SESSION}`,
    });
    expect(shownSession.prompts.map((p: { prompt: string }) => p.prompt)).toEqual(['Create out.txt, read it, edit it, then cat a missing file.']);
    const tools = shownSession.tool_events as Array<{ tool_name: string; failed: boolean; exit_code?: number; error?: string; input: string }>;
    expect(tools.map((t) => [t.tool_name, t.failed])).toEqual([
      ['bash', false],
      ['read', false],
      ['edit', false],
      ['bash', true],
      ['read', true],
    ]);
    expect(tools[3]).toMatchObject({ exit_code: 1, error: expect.stringContaining('No such file or directory') });
    expect(tools[4]!.error).toMatch(/^File not found: /);
    const stop = h.worker.store.db.prepare("SELECT payload FROM queue WHERE kind = 'summary'").get() as { payload: string };
    expect(JSON.parse(stop.payload).last_assistant_message).toBe('All steps done: out.txt now says hello world; does-not-exist.txt is missing.');
    const hooksSeen = JSON.parse((await h.get('/health')).text).hooks;
    expect(hooksSeen).toMatchObject({ rejected: 0, failed: 0, unreadable: 0 });
  });

  it('gives the session’s first message memtrace’s context as a synthetic part with an id of OpenCode’s own shape', async () => {
    const { project, dataDir, env } = setUp();
    h = await startHarness(noProvider(), { dataDir });
    addObservation(h.worker.store, { project: fs.realpathSync(project), title: 'The shop API answers in cents' });
    const hooks = openCodePlugin(installed, { directory: project }, undefined, env);
    const stream = capturedStream('opencode');
    const created = stream.find((c) => c.name === 'event.session.created')!.data;
    const message = structuredClone(stream.find((c) => c.name === 'chat.message')!.data);
    await hooks.event!({ event: created } as never);
    await hooks['chat.message']!(message.input as never, message.output as never);
    const added = message.output.parts.at(-1);
    expect(message.output.parts).toHaveLength(2);
    expect(added).toMatchObject({ type: 'text', synthetic: true, sessionID: SESSION, messageID: message.output.message.id });
    expect(added.text).toContain('The shop API answers in cents');
    expect(added.id).toMatch(/^prt_[0-9a-f]{12}[0-9A-Za-z]{14}$/);
    expect(added.id > message.output.parts[0].id).toBe(true);
    // Only the first message gets it.
    const again = structuredClone(stream.find((c) => c.name === 'chat.message')!.data);
    await hooks['chat.message']!(again.input as never, again.output as never);
    expect(again.output.parts).toHaveLength(1);
    // OpenCode's end: what the plugin queued is delivered before the worker goes.
    await hooks.dispose!();
  });

  it('reads what it understands from a newer OpenCode and never throws on anything else', async () => {
    const { project, dataDir, env } = setUp();
    h = await startHarness(noProvider(), { dataDir });
    const hooks = openCodePlugin(installed, { directory: project }, undefined, env);
    const stream = capturedStream('opencode');
    const odd: Array<() => Promise<unknown>> = [
      () => hooks.event!({ event: null } as never),
      () => hooks.event!({ event: { type: 'session.archived', properties: 'x' } } as never),
      () => hooks.event!({ event: { type: 'message.part.updated', properties: { part: { type: 'tool', state: { status: 'error' } } } } } as never),
      () => hooks['tool.execute.after']!(undefined as never, undefined as never),
      () => hooks['tool.execute.after']!({ sessionID: SESSION } as never, 'not an object' as never),
      () => hooks['chat.message']!({ sessionID: 7 } as never, null as never),
      () => hooks['experimental.text.complete']!(null as never, null as never),
    ];
    for (const call of odd) await expect(call()).resolves.toBeUndefined();
    const after = stream.filter((c) => c.name === 'tool.execute.after')[1]!.data;
    await hooks['tool.execute.after']!({ ...after.input, futureField: { deep: [1] } } as never, { ...after.output, attachments: [] } as never);
    await hooks.dispose!();
    await waitFor(() => h!.worker.store.db.prepare('SELECT count(*) AS n FROM tool_events').get() !== undefined);
    const stored = h.worker.store.db.prepare('SELECT tool_name FROM tool_events').all() as Array<{ tool_name: string }>;
    expect(stored.map((r) => r.tool_name)).toEqual(['read']);
    // The call with no tool was refused by the worker and kept aside, not lost.
    expect(JSON.parse((await h.get('/health')).text).hooks.unreadable).toBe(1);
  });

  it('with no worker, spools every event (redacted) through the Node hook, which starts the worker that replays them', async () => {
    const { project, dataDir, env } = setUp();
    const secret = 'AKIA' + 'IOSFODNN7EXAMPLE';
    const stream = capturedStream('opencode').map((c) =>
      c.name === 'tool.execute.after' && c.data.input.tool === 'read'
        ? { ...c, data: { ...c.data, output: { ...c.data.output, output: `key=${secret}` } } }
        : c,
    );
    const hooks = openCodePlugin(installed, { directory: project }, undefined, env);
    try {
      await replayOpenCode(hooks, stream);
      // dispose waited for the budget; the rest are handed over in the background.
      await workerReplayed(dataDir, SESSION, 5);
      const shownSession = await shown(dataDir, SESSION);
      expect(shownSession.session).toMatchObject({ platform: 'opencode', status: 'ended' });
      expect(JSON.stringify(shownSession)).not.toContain(secret);
    } finally {
      const stop = captureIO({ env: { ...env } });
      await main(['worker', 'stop'], stop.io);
    }
  }, 120_000);

  it('never holds OpenCode longer than the budget when the worker takes the connection and never answers', async () => {
    const { project, dataDir } = setUp();
    fs.mkdirSync(dataDir, { mode: 0o700 });
    const held: net.Socket[] = [];
    const silent = net.createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(path.join(dataDir, 'worker.sock'), resolve));
    const env = {
      HOME: path.join(temp.dir, 'home'),
      PATH: process.env.PATH,
      MEMTRACE_DATA_DIR: dataDir,
      MEMTRACE_HOOK_TIMEOUT_MS: '300',
      MEMTRACE_TELEMETRY: '0',
    };
    try {
      // The worker's answer is waited for 1 s before the event goes to the spool (15 s by default).
      const hooks = openCodePlugin(installed, { directory: project }, undefined, env, { deliveryTimeoutMs: 1_000 });
      const stream = capturedStream('opencode');
      const after = stream.find((c) => c.name === 'tool.execute.after')!.data;
      // A tool result is queued and the hook returns while the worker still holds its connection unanswered.
      await hooks.event!({ event: stream.find((c) => c.name === 'event.session.created')!.data } as never);
      await hooks['tool.execute.after']!(after.input as never, after.output as never);
      await waitFor(() => held.length > 0);
      expect(held.every((s) => !s.destroyed)).toBe(true);
      // The first message waits for the context only until the budget, then goes on without it.
      const message = structuredClone(stream.find((c) => c.name === 'chat.message')!.data);
      await hooks['chat.message']!(message.input as never, message.output as never);
      expect(message.output.parts).toHaveLength(1);
      // Nothing is lost: what the worker never answered is spooled by the Node hook.
      await waitFor(() => listSpool(dataDir).length >= 3, 30_000);
      const spooled = listSpool(dataDir).map((name) => readSpooled(dataDir, name) as { host: string; event: string; failure: string });
      expect(spooled.map((e) => e.event).slice(0, 3)).toEqual(['session.created', 'tool.execute.after', 'chat.message']);
      expect(new Set(spooled.map((e) => e.host))).toEqual(new Set(['opencode']));
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 60_000);
});
