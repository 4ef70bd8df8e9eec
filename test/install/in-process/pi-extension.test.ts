/**
 * memtrace's pi extension (src/install/in-process/pi-extension.ts) driven with the real event
 * stream of a pi 0.73.1 run, in this Node process, against a real worker on its socket, and
 * with no worker. The real pi runs it in test/e2e/host-pi.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { MEMTRACE_BIN } from '../../../src/cli/memtrace-bin.js';
import { piExtension } from '../../../src/install/in-process/pi-extension.js';
import { memoryToolSpecs } from '../../../src/install/memory-tool-specs.js';
import { noProvider } from '../../../src/providers/index.js';
import { captureIO } from '../../support/cli-io.js';
import { capturedStream, fakePi, replayPi, workerReplayed, storedSession } from '../../support/in-process-fixtures.js';
import { addObservation } from '../../support/memory-fixtures.js';
import { makeTempDir } from '../../support/temp-dir.js';
import { waitFor } from '../../support/wait-for.js';
import { startHarness, type Harness } from '../../support/worker-harness.js';

const SESSION = '01a22454-b6a8-77cc-a9bf-3f24b40282d4';
const installed = { memtraceBin: MEMTRACE_BIN, node: process.execPath, version: 'test' };

let temp: ReturnType<typeof makeTempDir>;
let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
  temp?.cleanup();
});

function setUp() {
  temp = makeTempDir('mt-pi-');
  const dataDir = path.join(temp.dir, 'data');
  const env = {
    HOME: temp.dir,
    PATH: process.env.PATH,
    MEMTRACE_DATA_DIR: dataDir,
    MEMTRACE_PORT: '0',
    MEMTRACE_TELEMETRY: '0',
    MEMTRACE_PROVIDER: 'none',
    // A loaded machine may answer slower than the 2 s budget: these tests are about what is stored.
    MEMTRACE_HOOK_TIMEOUT_MS: '30000',
  };
  return { dataDir, env };
}

async function shown(dataDir: string, sessionId: string) {
  const stored = await storedSession(dataDir, sessionId);
  expect(stored, `no session ${sessionId}`).not.toBeNull();
  return stored;
}

describe('memtrace’s pi extension', () => {
  it('stores a captured pi run once: every tool result (isError ones as failures), the prompt, the final text and the end', async () => {
    const { dataDir, env } = setUp();
    h = await startHarness(noProvider(), { dataDir });
    const pi = fakePi();
    piExtension(installed, [], pi.api, undefined, env);
    const results = await replayPi(pi);
    // No memory yet: nothing to add to the prompt beyond the worker's own empty context.
    expect(results.filter((r) => r !== undefined).length).toBeLessThanOrEqual(1);

    const shownSession = await shown(dataDir, SESSION);
    expect(shownSession.session).toMatchObject({ platform: 'pi', status: 'ended', endReason: 'quit', source: 'startup' });
    expect(shownSession.session.transcriptPath).toMatch(/_01a22454-b6a8-77cc-a9bf-3f24b40282d4\.jsonl$/);
    expect(shownSession.prompts.map((p: { prompt: string }) => p.prompt)).toEqual(['Create out.txt, read it, edit it, then cat a missing file.']);
    const tools = shownSession.tool_events as Array<{ tool_name: string; failed: boolean; exit_code?: number; error?: string }>;
    expect(tools.map((t) => [t.tool_name, t.failed])).toEqual([
      ['bash', false],
      ['read', false],
      ['edit', false],
      ['bash', true],
      ['read', true],
    ]);
    expect(tools[3]).toMatchObject({ exit_code: 1 });
    const stop = h.worker.store.db.prepare("SELECT payload FROM queue WHERE kind = 'summary'").get() as { payload: string };
    expect(JSON.parse(stop.payload).last_assistant_message).toBe('All steps done: out.txt now says hello world; does-not-exist.txt is missing.');
  });

  it('gives the first prompt of a session memtrace’s context as a hidden custom message, once', async () => {
    const { dataDir, env } = setUp();
    h = await startHarness(noProvider(), { dataDir });
    const project = path.join(temp.dir, 'proj');
    fs.mkdirSync(project);
    addObservation(h.worker.store, { project: fs.realpathSync(project), title: 'The shop API answers in cents' });
    const pi = fakePi();
    piExtension(installed, [], pi.api, undefined, env);
    const facts = { cwd: project, sessionId: 's-1', sessionFile: path.join(temp.dir, 'x.jsonl') };
    await pi.fire({ type: 'session_start', reason: 'startup' }, facts);
    const [first] = await pi.fire({ type: 'before_agent_start', prompt: 'hi', systemPrompt: 'You are pi.' }, facts);
    expect(first).toMatchObject({ message: { customType: 'memtrace', display: false, content: expect.stringContaining('The shop API answers in cents') } });
    const [second] = await pi.fire({ type: 'before_agent_start', prompt: 'again', systemPrompt: 'You are pi.' }, facts);
    expect(second).toBeUndefined();
    await pi.fire({ type: 'session_shutdown', reason: 'quit' }, facts);
  });

  it('offers memtrace’s memory tools, answered by the worker’s MCP server, or by `memtrace mcp` when no worker runs', async () => {
    const { dataDir, env } = setUp();
    h = await startHarness(noProvider(), { dataDir });
    addObservation(h.worker.store, { project: '/work/shop', title: 'The shop API answers in cents', narrative: 'prices are integers' });
    const pi = fakePi();
    piExtension(installed, await memoryToolSpecs(), pi.api, undefined, env);
    expect(pi.tools.map((t) => t.name)).toEqual(['memtrace_search', 'memtrace_timeline', 'memtrace_get_observations']);
    const search = pi.tools[0];
    expect(search.parameters).toMatchObject({ type: 'object', required: ['query'] });
    const live = await search.execute('call-1', { query: 'shop cents' }, undefined);
    expect(live.content[0].text).toContain('The shop API answers in cents');
    expect(h.log.records.some((r) => r.message === 'an MCP session opened')).toBe(true);
    await expect(pi.tools[2].execute('call-2', { ids: [999] }, undefined)).rejects.toThrow(/999/);

    await h.stop();
    h = undefined;
    const offline = await search.execute('call-3', { query: 'shop cents' }, undefined);
    expect(offline.content[0].text).toContain('The shop API answers in cents');
  }, 60_000);

  it('with no worker, spools every event through the Node hook, which starts the worker that replays them', async () => {
    const { dataDir, env } = setUp();
    const pi = fakePi();
    piExtension(installed, [], pi.api, undefined, env);
    try {
      await replayPi(pi);
      await workerReplayed(dataDir, SESSION, 5);
      expect((await shown(dataDir, SESSION)).session).toMatchObject({ platform: 'pi', status: 'ended' });
    } finally {
      await main(['worker', 'stop'], captureIO({ env }).io);
    }
  }, 120_000);

  it('reads what it understands from a newer pi and never throws on anything else', async () => {
    const { dataDir, env } = setUp();
    h = await startHarness(noProvider(), { dataDir });
    const pi = fakePi();
    piExtension(installed, [], pi.api, undefined, env);
    const result = capturedStream('pi').find((c) => c.name === 'tool_result')!.data;
    await expect(pi.fire({ type: 'tool_result' }, {})).resolves.toEqual([undefined]);
    await expect(pi.fire({ type: 'agent_end', messages: 'garbage' }, { sessionId: SESSION })).resolves.toEqual([undefined]);
    await pi.fire({ ...result.event, toolCallId: 'call_new', extra: { nested: true }, content: [{ type: 'image' }] }, result.ctx);
    await waitFor(() => (h!.worker.store.db.prepare('SELECT count(*) AS n FROM tool_events').get() as { n: number }).n === 1);
    expect(JSON.parse((await h.get('/health')).text).hooks).toMatchObject({ failed: 0 });
    await pi.fire({ type: 'session_shutdown', reason: 'quit' }, result.ctx);
  });
});
