/**
 * SLOW: the real GitHub Copilot CLI 1.0.102 (pinned devDependency), offline in a loopback-only
 * network namespace (BYOK against its fake API, COPILOT_OFFLINE), with the hooks and MCP server
 * `memtrace install --host copilot` writes, talking to a real memtrace worker. The project install
 * runs the shared host scenario (test/e2e/host-sessions.ts; the test trusts the folder for one run
 * with --trust-folder, as install never does); the user-scope install (no trust needed) runs a
 * session whose platform must reach the by-host tile of a real local collector; and two sessions
 * are killed mid-call, one from before the install (mining recovers its finished calls, once) and
 * one the hooks saw (mining recognises its calls and names them by Copilot's own ids).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startCollector, type RunningCollector } from '../../src/fleet/collector/index.js';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { listSpool } from '../../src/data-dir/index.js';
import { captureIO } from '../support/cli-io.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { hostUnavailableReason, runHostCli, startHostFakeApi } from '../support/host-cli.js';
import { FINAL_TEXT, hostScript } from '../support/host-scenario.js';
import { observationXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, type Harness } from '../support/worker-harness.js';
import { hostSessionTests } from './host-sessions.js';

const unavailable = hostUnavailableReason('copilot');
if (unavailable) console.warn(`skipping the memtrace + Copilot CLI e2e test: ${unavailable}`);

describe.skipIf(unavailable !== null)('memtrace installed into the real Copilot CLI (project scope)', () => {
  hostSessionTests('copilot', { shellTool: 'bash', failingInput: 'cat does-not-exist.txt', toolCalls: 6 });
});

/**
 * A session killed while its third call (a long sleep) runs, once Copilot has flushed the two before
 * it. Copilot flushes its log after a few idle seconds (about 4 s in the reference run), later on a
 * loaded machine: the sleep is the window for that, as long as it can be while Copilot still waits
 * for the command (its bash tool's initial_wait, 30 s by default, moves a command still running to the background).
 */
const KILLED_SCRIPT = [
  { call: 'bash', args: { command: 'echo hello > out.txt && echo hi', description: 'write out.txt' } },
  { call: 'view', args: { path: '${PROJECT}/out.txt' } },
  { call: 'bash', args: { command: 'sleep 25', description: 'wait' } },
  { text: 'never reached' },
];

describe.skipIf(unavailable !== null)('the real Copilot CLI with memtrace at user scope', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let observer: FakeLlm;
  let collector: RunningCollector;
  let h: Harness;
  let env: Record<string, string>;
  beforeAll(async () => {
    temp = makeTempDir('memtrace-copilot-user-');
    collector = await startCollector({ dbFile: path.join(temp.dir, 'collector.db'), port: 0 });
    observer = await startFakeLlm('anthropic', {
      kind: 'text',
      text: observationXml({ type: 'discovery', title: 'out.txt greets the world', narrative: 'out.txt was written, then edited.' }),
    });
    h = await startHarness(createAnthropicProvider({ apiKey: 'k', baseUrl: observer.url }), {
      dataDir: path.join(temp.dir, 'memtrace-data'),
      env: { MEMTRACE_POSTHOG_KEY: 'phc_test', MEMTRACE_POSTHOG_HOST: collector.url },
      // Telemetry is delivered on the worker's tick.
      tickMs: 1_000,
      watch: { dirs: [], intervalMs: 3_600_000, idleMs: 3_600_000, firstPassDelayMs: 3_600_000, catchUpDelayMs: 300 },
    });
    env = { MEMTRACE_DATA_DIR: h.dataDir, MEMTRACE_PORT: String(h.worker.port), MEMTRACE_TELEMETRY: '0', MEMTRACE_HOOK_TIMEOUT_MS: '8000' };
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
    await observer?.close();
    await collector?.close();
    temp?.cleanup();
  });

  const project = (name: string) => {
    const dir = path.join(temp.dir, name);
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  };
  const installAt = async (home: string) => {
    const c = captureIO({ env: { ...env, HOME: home } });
    expect(await main(['install', '--host', 'copilot'], c.io), c.stderr()).toBe(0);
    expect(c.stdout()).toContain("next: start a Copilot CLI session; memtrace's worker starts on its first sessionStart");
  };
  const sessionDirs = (home: string) => {
    const root = path.join(home, '.copilot', 'session-state');
    // Besides one folder per session (its id), Copilot keeps `.session-operation-locks` there.
    return fs.existsSync(root) ? fs.readdirSync(root).filter((name) => /^[0-9a-f]{8}-[0-9a-f-]{27}$/.test(name)) : [];
  };
  const eventsOf = (home: string) => {
    const [id] = sessionDirs(home);
    return id ? path.join(home, '.copilot', 'session-state', id, 'events.jsonl') : null;
  };
  const finishedCalls = (home: string) => {
    const file = eventsOf(home);
    return file && fs.existsSync(file) ? (fs.readFileSync(file, 'utf8').match(/"type":"tool\.execution_complete"/g) ?? []).length : 0;
  };
  const toolIds = (sessionId: string) =>
    (
      h.worker.store.db.prepare('SELECT tool_use_id FROM tool_events WHERE session_id = ? ORDER BY queue_id').all(sessionId) as Array<{ tool_use_id: string }>
    ).map((r) => r.tool_use_id);
  const mine = async (home: string) => {
    const c = captureIO({ env: { ...env, HOME: home } });
    expect(await main(['mine', '--host', 'copilot', '--json'], c.io), c.stderr()).toBe(0);
    return JSON.parse(c.stdout()) as { events_queued: number; events_already_queued: number };
  };
  /** A killed agent leaves its tool running in its own process group: the host's to end, here the test's (by pid). */
  const endLeftovers = (cwd: string) => {
    for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      try {
        if (fs.readlinkSync(`/proc/${pid}/cwd`) === cwd) process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone, or not ours to read
      }
    }
  };
  async function killedSession(name: string, options: { hooked: boolean }) {
    const home = path.join(temp.dir, `home-${name}`);
    const dir = project(`${name} project`);
    if (options.hooked) await installAt(home);
    const api = await startHostFakeApi('copilot', { projectDir: dir, logFile: path.join(temp.dir, `api-${name}.jsonl`), script: KILLED_SCRIPT });
    try {
      const run = await runHostCli('copilot', {
        projectDir: dir,
        home,
        apiPort: api.port,
        env,
        forwardPorts: [h.worker.port],
        killWhen: () => finishedCalls(home) >= 2,
      });
      expect(run.killed, run.stderr.slice(-2000)).toBe(true);
    } finally {
      endLeftovers(dir);
      await api.close();
    }
    const [sessionId] = sessionDirs(home);
    return { home, sessionId: sessionId! };
  }

  it('stores every call of a session with the user-scope hooks once, names each by Copilot’s own id once its log is written, and its platform reaches the by-host tile', async () => {
    const home = path.join(temp.dir, 'home-user');
    await installAt(home);
    const dir = project('user project');
    const api = await startHostFakeApi('copilot', { projectDir: dir, logFile: path.join(temp.dir, 'api-user.jsonl'), script: hostScript('copilot') });
    let requests: any[];
    try {
      const run = await runHostCli('copilot', { projectDir: dir, home, apiPort: api.port, env, forwardPorts: [h.worker.port] });
      expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
      requests = api.requests();
    } finally {
      await api.close();
    }
    // Session start's context reached the model as its own message (Copilot's additionalContext).
    expect(JSON.stringify(requests.find((r) => r.kind === 'main')?.body)).toContain('memtrace');
    await waitFor(() => listSpool(h.dataDir).length === 0, 60_000);
    const [sessionId] = sessionDirs(home);
    const session = h.worker.store.sessions.get(sessionId!)!;
    expect(session).toMatchObject({ platform: 'copilot', status: 'ended', transcriptPath: eventsOf(home) });
    // At session end the worker mines events.jsonl: nothing new, and every call is named by its toolCallId.
    await waitFor(() => toolIds(sessionId!).every((id) => id.startsWith('call_')), 30_000);
    expect(toolIds(sessionId!)).toHaveLength(5);
    const shown = h.worker.store.toolEvents.forSession(sessionId!);
    expect(shown.map((t) => [t.toolName, t.failed, t.exitCode])).toEqual([
      ['bash', false, null],
      ['view', false, null],
      ['edit', false, null],
      ['bash', true, 1],
      ['view', true, null],
    ]);
    // The Stop came without its final text; the worker read it from events.jsonl for the observer.
    await h.drained(30_000);
    await waitFor(() => observer.requests.some((r) => JSON.stringify(r.body).includes(FINAL_TEXT.slice(0, 40))), 30_000);
    // Its observer turns reach the collector as platform copilot, and the by-host tile shows the host.
    await waitFor(() => {
      const rows = collector.sqlite!.tiles.read().find((r) => r.tile.id === 'hosts')?.rows as Array<{ series: string; observer_turns: number }> | undefined;
      return rows?.some((r) => r.series === 'copilot' && r.observer_turns > 0) === true;
    }, 60_000);
  }, 240_000);

  it('recovers the finished calls of a killed session from before the install by mining, once', async () => {
    const { home, sessionId } = await killedSession('old', { hooked: false });
    expect(h.worker.store.sessions.get(sessionId)).toBeNull();
    expect(await mine(home)).toMatchObject({ events_queued: 2, events_already_queued: 0 });
    expect(h.worker.store.sessions.get(sessionId)).toMatchObject({ platform: 'copilot' });
    expect(toolIds(sessionId)).toEqual([expect.stringMatching(/^call_/), expect.stringMatching(/^call_/)]);
    expect(await mine(home)).toMatchObject({ events_queued: 0 });
    expect(toolIds(sessionId)).toHaveLength(2);
  }, 120_000);

  it('recognises the calls a killed session’s hooks delivered when mining, and names them by Copilot’s ids', async () => {
    const { home, sessionId } = await killedSession('hooked', { hooked: true });
    await waitFor(() => toolIds(sessionId).length === 2, 30_000);
    expect(toolIds(sessionId).every((id) => id.startsWith('copilot-'))).toBe(true);
    expect(await mine(home)).toMatchObject({ events_queued: 0, events_already_queued: 2 });
    expect(toolIds(sessionId)).toEqual([expect.stringMatching(/^call_/), expect.stringMatching(/^call_/)]);
  }, 120_000);
});
