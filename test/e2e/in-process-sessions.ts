/**
 * The end-to-end checks host-opencode.test.ts and host-pi.test.ts run: the real CLI, offline, with
 * memtrace's plugin (extension) installed by `memtrace install --host …` in the user's scratch
 * HOME, talking to a real memtrace worker whose observer is a fake LLM (so memory exists after
 * session 1) and whose telemetry goes to a PostHog-compatible capture server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { openCollectorStore, type CollectedEvent } from '../../src/fleet/collector/index.js';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { startCaptureServer, type CaptureServer } from '../support/capture-server.js';
import { captureIO } from '../support/cli-io.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { HOST_PROMPT, prepareInProcessHome, runInProcessHost, startFakeModelApi, type InProcessHost } from '../support/in-process-hosts.js';
import { observationXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

const MEMORY_TITLE = 'out.txt greets the world';
const FINAL_TEXT = 'All steps done: out.txt now says hello world; does-not-exist.txt is missing.';
const LARGE_COMMAND = 'seq 1 200000';

/** The harnesses' default script (shared/hosts/<host>/script.json) plus a command with a large output. */
function sessionScript(host: InProcessHost): unknown[] {
  const file = host === 'opencode' ? 'filePath' : 'path';
  const shell = (command: string, description: string) => ({ call: 'bash', args: host === 'opencode' ? { command, description } : { command } });
  const edit =
    host === 'opencode'
      ? { filePath: '${PROJECT}/out.txt', oldString: 'hello', newString: 'hello world' }
      : { path: '${PROJECT}/out.txt', edits: [{ oldText: 'hello', newText: 'hello world' }] };
  return [
    shell('echo hello > out.txt && echo hi', 'write out.txt'),
    { call: 'read', args: { [file]: '${PROJECT}/out.txt' } },
    { call: 'edit', args: edit },
    shell('cat does-not-exist.txt', 'read a missing file'),
    { call: 'read', args: { [file]: '${PROJECT}/does-not-exist.txt' } },
    shell(LARGE_COMMAND, 'count'),
    { text: FINAL_TEXT },
  ];
}

export function inProcessSessionTests(host: InProcessHost) {
  let temp: ReturnType<typeof makeTempDir>;
  let observer: FakeLlm;
  let capture: CaptureServer;
  let h: Harness | undefined;
  let project: string;
  let env: Record<string, string>;
  let homes = 0;

  beforeAll(async () => {
    temp = makeTempDir(`mt-${host}-`);
    project = path.join(temp.dir, 'shop api');
    fs.mkdirSync(project);
    execFileSync('git', ['init', '-q', project]);
    observer = await startFakeLlm('anthropic', {
      kind: 'text',
      text: observationXml({ type: 'discovery', title: MEMORY_TITLE, narrative: 'out.txt was written, then edited to say hello world.' }),
    });
    capture = await startCaptureServer();
    h = await startHarness(createAnthropicProvider({ apiKey: 'k', baseUrl: observer.url }), {
      dataDir: path.join(temp.dir, 'data'),
      env: { MEMTRACE_POSTHOG_KEY: 'phc_test', MEMTRACE_POSTHOG_HOST: capture.url },
      watch: { dirs: [], intervalMs: 3_600_000, idleMs: 3_600_000, firstPassDelayMs: 3_600_000, catchUpDelayMs: 300 },
    });
    // A loaded machine may take longer than the 2 s budget; these tests are about what is stored.
    env = { MEMTRACE_DATA_DIR: h.dataDir, MEMTRACE_PORT: String(h.worker.port), MEMTRACE_TELEMETRY: '0', MEMTRACE_HOOK_TIMEOUT_MS: '8000' };
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
    await observer?.close();
    await capture?.close();
    temp?.cleanup();
  });

  /** A user's HOME with the host set up for the fake API and memtrace installed the way a user installs it. */
  async function userHome(apiPort: number, install = true): Promise<string> {
    const home = path.join(temp.dir, `home-${++homes}`);
    fs.mkdirSync(home);
    prepareInProcessHome(host, home, apiPort);
    if (install) {
      const c = captureIO({ env: { ...env, HOME: home } });
      expect(await main(['install', '--host', host], c.io), c.stderr()).toBe(0);
    }
    return home;
  }

  const sessionIds = () =>
    new Set((h!.worker.store.db.prepare('SELECT session_id FROM sessions').all() as Array<{ session_id: string }>).map((r) => r.session_id));

  async function session(script: unknown[], options: { home?: string; killAfterRequests?: number; install?: boolean } = {}) {
    const logFile = path.join(temp.dir, `api-${homes + 1}.jsonl`);
    const api = await startFakeModelApi({ projectDir: project, logFile, script });
    try {
      const home = options.home ?? (await userHome(api.port, options.install ?? true));
      if (options.home) prepareInProcessHome(host, home, api.port);
      const before = sessionIds();
      const killAt = options.killAfterRequests;
      const run = await runInProcessHost(host, {
        projectDir: project,
        home,
        apiPort: api.port,
        env,
        forwardPorts: [h!.worker.port],
        ...(killAt ? { killWhen: () => api.requests().filter((r) => r.kind === 'main').length >= killAt } : {}),
      });
      if (!killAt) expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
      const ids = [...sessionIds()].filter((id) => !before.has(id));
      return { run, home, ids, requests: api.requests() };
    } finally {
      await api.close();
    }
  }

  async function shown(sessionId: string) {
    const c = captureIO({ env: { ...env, HOME: temp.dir } });
    expect(await main(['show', '--session', sessionId, '--json'], c.io), c.stderr()).toBe(0);
    return JSON.parse(c.stdout());
  }

  it('stores every event of a scripted session once, in order, with its platform; the failing calls as failures; the turn’s final text and the end', async () => {
    const hooksBefore = JSON.parse((await h!.get('/health')).text).hooks;
    const { ids, run } = await session(sessionScript(host));
    expect(ids).toHaveLength(1);
    const sessionId = ids[0]!;
    await h!.drained(60_000);
    const shownSession = await shown(sessionId);
    expect(shownSession.session).toMatchObject({ platform: host, status: 'ended', project: fs.realpathSync(project) });
    expect(shownSession.prompts.map((p: { prompt: string }) => p.prompt)).toEqual([HOST_PROMPT]);
    const tools = shownSession.tool_events as Array<{
      tool_name: string;
      tool_use_id: string;
      failed: boolean;
      exit_code?: number;
      error?: string;
      input: string;
    }>;
    expect(tools.map((t) => t.tool_name)).toEqual(['bash', 'read', 'edit', 'bash', 'read', 'bash']);
    expect(new Set(tools.map((t) => t.tool_use_id)).size).toBe(6);
    expect(tools.map((t) => t.failed)).toEqual([false, false, false, true, true, false]);
    expect(tools[3]).toMatchObject({ exit_code: 1, error: expect.stringContaining('No such file or directory') });
    // At session end the worker mines the host's own store: every call was already delivered by the plugin.
    const transcript = shownSession.session.transcriptPath as string;
    await waitFor(() => h!.worker.store.db.prepare('SELECT 1 FROM mined_transcript_files WHERE path = ?').get(transcript) !== undefined, 30_000);
    const mined = h!.worker.store.db.prepare('SELECT sum(events_queued) AS n FROM mined_transcript_keys WHERE session_id = ?').get(sessionId) as { n: number };
    expect(mined.n).toBe(0);
    await h!.drained(60_000);
    expect(observer.requests.some((r) => JSON.stringify(r.body).includes(FINAL_TEXT.slice(0, 40)))).toBe(true);
    const hooks = JSON.parse((await h!.get('/health')).text).hooks;
    // Session start, the prompt, six tool calls, the turn's end, the session's end: ten events, each once.
    expect(hooks.accepted - hooksBefore.accepted + (hooks.replayed_from_spool - hooksBefore.replayed_from_spool)).toBe(10);
    expect(hooks).toMatchObject({ rejected: 0, failed: 0, unreadable: 0 });
    console.log(`${host}: 10 events stored for 6 tool calls; session wall ${Math.round(run.wallMs)} ms`);
  }, 300_000);

  it('gives the next session, in its first model request, the first session’s memory and memtrace’s search tool, which answers from it', async () => {
    expect(h!.worker.store.observations.count()).toBeGreaterThan(0);
    const { requests } = await session([{ call: 'memtrace_search', args: { query: 'out.txt greets' } }, { text: 'Found it.' }]);
    const main = requests.filter((r) => r.kind === 'main');
    const first = JSON.stringify(main[0].body);
    expect(first).toContain('memtrace context');
    expect(first).toContain(MEMORY_TITLE);
    expect(main[0].tool_names).toContain('memtrace_search');
    // The model called the tool: the next request carries its answer, from this worker's memory.
    expect(JSON.stringify(main[1].body.messages.at(-1))).toContain(MEMORY_TITLE);
  }, 300_000);

  it('recovers by mining the finished calls of killed sessions, each once: with memtrace, those not yet delivered when it died; before the install, all', async () => {
    const script = [
      { call: 'bash', args: { command: 'echo one > one.txt', description: 'one' } },
      { call: 'bash', args: { command: 'cat one.txt', description: 'two' } },
      { call: 'bash', args: { command: 'sleep 5', description: 'wait' } },
      { text: 'never reached' },
    ];
    const installed = await session(script, { killAfterRequests: 3 });
    expect(installed.run.killed).toBe(true);
    const before = await session(script, { killAfterRequests: 3, install: false });
    expect(before.run.killed).toBe(true);
    expect(before.ids).toEqual([]);
    const mine = async (home: string) => {
      const c = captureIO({ env: { ...env, HOME: home } });
      expect(await main(['mine', '--host', host, '--json'], c.io), c.stderr()).toBe(0);
      return JSON.parse(c.stdout());
    };
    // With memtrace: the finished calls the plugin had delivered before the kill are known; any it
    // had queued but not yet sent died with the process and are mined now. Each once, either way.
    const afterKill = await mine(installed.home);
    expect(afterKill.events_queued + afterKill.events_already_queued).toBe(2);
    expect(installed.ids).toHaveLength(1);
    const killedTools = (await shown(installed.ids[0]!)).tool_events as Array<{ tool_use_id: string }>;
    expect(new Set(killedTools.map((t) => t.tool_use_id)).size).toBe(2);
    expect(killedTools).toHaveLength(2);
    console.log(`${host}: killed session: ${afterKill.events_already_queued} call(s) delivered live, ${afterKill.events_queued} recovered by mining`);
    // Before the install: mining finds the two finished calls, once.
    expect(await mine(before.home)).toMatchObject({ events_queued: 2 });
    expect(await mine(before.home)).toMatchObject({ events_queued: 0 });
    const recovered = [...sessionIds()].filter((id) => !installed.ids.includes(id));
    const tools = (await Promise.all(recovered.map(shown))).flatMap((s) => (s.session.platform === host ? s.tool_events : []));
    expect(tools.filter((t: { input: string }) => t.input.includes('one.txt'))).toHaveLength(2);
  }, 300_000);

  it('sends platform in the rollups, which the "by host" tile counts', async () => {
    await h!.stop();
    h = undefined;
    const byEvent = (name: string) => capture.events.filter((e) => e.event === name);
    expect(byEvent('hook_rollup').length).toBeGreaterThan(0);
    expect(new Set(byEvent('hook_rollup').map((e) => e.properties.platform))).toEqual(new Set([host]));
    expect(byEvent('observer_turn_rollup').some((e) => e.properties.platform === host)).toBe(true);
    const store = openCollectorStore(':memory:');
    store.insert(
      capture.events.map(
        (e, n): CollectedEvent => ({
          uuid: e.uuid ?? `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
          event: e.event,
          distinctId: e.distinct_id ?? 'install',
          timestamp: e.timestamp ? Date.parse(e.timestamp) : Date.now(),
          properties: e.properties,
        }),
      ),
    );
    const rows = store.tiles.read().find((r) => r.tile.id === 'hosts')!.rows as Array<{ series: string; active_installs: number; observer_turns: number }>;
    const mine = rows.filter((r) => r.series === host);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.reduce((sum, r) => sum + r.active_installs, 0)).toBeGreaterThan(0);
    expect(mine.reduce((sum, r) => sum + r.observer_turns, 0)).toBeGreaterThan(0);
    store.close();
  }, 120_000);
}
