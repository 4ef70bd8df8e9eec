/**
 * The end-to-end check both host tests run (host-gemini-cli.test.ts, host-codex.test.ts): the real
 * CLI, offline, in a project where `memtrace install --host … --project` wrote the hooks, talking
 * to a real memtrace worker whose observer is a fake LLM (so memory exists after session 1).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createAnthropicProvider } from '../../src/providers/index.js';
import { captureIO } from '../support/cli-io.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { prepareHostHome, runHostCli, startHostFakeApi, type AgentHost } from '../support/host-cli.js';
import { expectedFirings, FINAL_TEXT, hostScript, LARGE_COMMAND } from '../support/host-scenario.js';
import { observationXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, type Harness } from '../support/worker-harness.js';
import { listSpool } from '../../src/data-dir/index.js';
import { offersMemtraceTools } from '../support/mcp-tools.js';

const MEMORY_TITLE = 'out.txt greets the world';
const MIB = 1024 * 1024;

export function hostSessionTests(host: AgentHost, facts: { shellTool: string; failingInput: string; toolCalls: number }) {
  let temp: ReturnType<typeof makeTempDir>;
  let observer: FakeLlm;
  let h: Harness;
  let project: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    temp = makeTempDir(`memtrace-${host}-`);
    project = path.join(temp.dir, 'shop api');
    fs.mkdirSync(project);
    execFileSync('git', ['init', '-q', project]);
    observer = await startFakeLlm('anthropic', {
      kind: 'text',
      text: observationXml({ type: 'discovery', title: MEMORY_TITLE, narrative: 'out.txt was written, then edited to say hello world.' }),
    });
    h = await startHarness(createAnthropicProvider({ apiKey: 'k', baseUrl: observer.url }), {
      dataDir: path.join(temp.dir, 'memtrace-data'),
      watch: { dirs: [], intervalMs: 3_600_000, idleMs: 3_600_000, firstPassDelayMs: 3_600_000, catchUpDelayMs: 300 },
    });
    // A loaded CI machine may take longer than the hook's 2 s budget; this test is about what is stored.
    env = { MEMTRACE_DATA_DIR: h.dataDir, MEMTRACE_PORT: String(h.worker.port), MEMTRACE_TELEMETRY: '0', MEMTRACE_HOOK_TIMEOUT_MS: '8000' };
    const c = captureIO({ env: { ...env, HOME: path.join(temp.dir, 'installer-home') } });
    expect(await main(['install', '--host', host, '--project', project], c.io), c.stderr()).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
    await observer?.close();
    temp?.cleanup();
  });

  async function session(name: string, options: { largeOutput?: boolean } = {}) {
    const home = path.join(temp.dir, `home-${name}`);
    const api = await startHostFakeApi(host, { projectDir: project, logFile: path.join(temp.dir, `api-${name}.jsonl`), script: hostScript(host, options) });
    try {
      prepareHostHome(host, home, api.port, project);
      const before = new Set((h.worker.store.db.prepare('SELECT session_id FROM sessions').all() as Array<{ session_id: string }>).map((r) => r.session_id));
      const run = await runHostCli(host, { projectDir: project, home, apiPort: api.port, env, forwardPorts: [h.worker.port] });
      expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
      const ids = (h.worker.store.db.prepare('SELECT session_id FROM sessions').all() as Array<{ session_id: string }>)
        .map((r) => r.session_id)
        .filter((id) => !before.has(id));
      expect(ids).toHaveLength(1);
      return { run, sessionId: ids[0]!, requests: api.requests() };
    } finally {
      await api.close();
    }
  }

  it('stores every event of the scripted session with its platform, the failing command as a failure with its exit code, and the large output shortened', async () => {
    const hooksBefore = JSON.parse((await h.get('/health')).text).hooks;
    const { sessionId } = await session('first', { largeOutput: true });
    await waitFor(() => listSpool(h.dataDir).length === 0, 60_000);
    const session1 = h.worker.store.sessions.get(sessionId)!;
    expect(session1).toMatchObject({ platform: host, status: 'ended', project: fs.realpathSync(project) });
    // At session end the worker mines the host's own transcript: every call was already queued by the hooks.
    await waitFor(() => h.worker.store.db.prepare('SELECT 1 FROM mined_transcript_files WHERE path = ?').get(session1.transcriptPath) !== undefined, 30_000);
    await h.drained(30_000);
    const mined = h.worker.store.db.prepare('SELECT sum(events_queued) AS n FROM mined_transcript_keys WHERE session_id = ?').get(sessionId) as { n: number };
    expect(mined.n).toBe(0);
    expect(h.worker.store.sessions.prompts(sessionId).map((p) => p.prompt)).toEqual(['Create out.txt, read it, edit it, then cat a missing file.']);

    const c = captureIO({ env: { ...env, HOME: temp.dir } });
    expect(await main(['show', '--session', sessionId, '--json'], c.io), c.stderr()).toBe(0);
    const shown = JSON.parse(c.stdout());
    expect(shown.session.platform).toBe(host);
    const tools = shown.tool_events as Array<{
      tool_name: string;
      tool_use_id: string;
      failed: boolean;
      exit_code?: number;
      error?: string;
      input: string;
      payload_chars: number;
    }>;
    expect(tools).toHaveLength(facts.toolCalls);
    expect(new Set(tools.map((t) => t.tool_use_id)).size).toBe(facts.toolCalls);
    const failing = tools.find((t) => t.tool_name === facts.shellTool && t.input.includes(facts.failingInput))!;
    expect(failing).toMatchObject({ failed: true, exit_code: 1, error: expect.stringContaining('No such file or directory') });
    const large = tools.find((t) => t.input.includes(LARGE_COMMAND))!;
    expect(large.failed).toBe(false);
    expect(large.payload_chars).toBeLessThan(MIB);

    // The final answer reached the observer as the session's summary request; the end closed the session.
    const observed = observer.requests.map((r) => JSON.stringify(r.body));
    expect(observed.some((text) => text.includes(FINAL_TEXT.slice(0, 40)))).toBe(true);
    const hooks = JSON.parse((await h.get('/health')).text).hooks;
    const fired = Object.values(expectedFirings(host, facts.toolCalls)).reduce((a, b) => a + b, 0);
    // One call per firing (session start's context comes back in its answer); a call that timed out was spooled and replayed.
    const stored = hooks.accepted - hooksBefore.accepted + (hooks.replayed_from_spool - hooksBefore.replayed_from_spool);
    expect(stored).toBe(fired);
    expect(hooks).toMatchObject({ rejected: 0, failed: 0 });
    console.log(
      `${host}: events stored ${stored} / fired ${fired}; largest tool payload stored ${Math.max(...tools.map((t) => t.payload_chars))} chars; shortened by the hook: ${hooks.shortened - hooksBefore.shortened}`,
    );
    if (host === 'gemini-cli') expect(hooks.shortened - hooksBefore.shortened).toBe(1);
  }, 240_000);

  it('gives the next session, in its first model request, the first session’s memory and memtrace’s tools (the installed bridge, served by the worker)', async () => {
    expect(h.worker.store.observations.count()).toBeGreaterThan(0);
    const sessionsBefore = mcpSessionsOpened();
    const { requests } = await session('second');
    const firstMain = requests.find((r) => r.kind === 'main');
    expect(firstMain).toBeDefined();
    const sent = JSON.stringify(firstMain.body);
    expect(sent).toContain('memtrace context');
    expect(sent).toContain(MEMORY_TITLE);
    expect(offersMemtraceTools(host, firstMain.body)).toBe(true);
    // The host's MCP server was the bridge to this worker, not the Node fallback.
    expect(mcpSessionsOpened()).toBeGreaterThan(sessionsBefore);
  }, 240_000);

  const mcpSessionsOpened = () => h.log.records.filter((r) => r.message === 'an MCP session opened').length;
}
