/**
 * SLOW: the REAL Gemini CLI, Codex CLI and Copilot CLI (pinned devDependencies) as memtrace's
 * observer, each logged in the way its offline harness supports (Gemini: an API key with its base
 * URL at the fake API; Codex: a model provider whose key is in the environment; Copilot: BYOK in the
 * environment, the login that makes memtrace choose it), each inside a loopback-only network
 * namespace. A turn's events become observations in one call; the user's own hooks and MCP servers
 * never start; no session of the observer is left in the user's history or captured by memtrace.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chooseObserver } from '../../src/providers/index.js';
import { DEFAULT_BATCH_LIMITS } from '../../src/worker/batch-policy.js';
import { copilotFakeLogin, HOST_BINS, hostUnavailableReason, prepareHostHome, startHostFakeApi, type AgentHost, type FakeApi } from '../support/host-cli.js';
import { sandboxedBin, type SandboxedBin } from '../support/observer-cli.js';
import { observationXml, summaryXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';

const REPLY =
  observationXml({ type: 'change', title: 'out.txt says hello world', narrative: 'The greeting was extended.', sources: ['e2'] }) +
  summaryXml({ request: 'extend the greeting', completed: 'out.txt says hello world' });

/** User-level config an observer call must not start: a hook on every event, an MCP server. Each leaves a marker. */
function userHooksAndMcp(host: AgentHost, home: string, markers: string): void {
  const touch = (what: string) => `touch "${path.join(markers, what)}"`;
  if (host === 'copilot') {
    const copilot = path.join(home, '.copilot');
    fs.mkdirSync(path.join(copilot, 'hooks'), { recursive: true });
    const events = ['sessionStart', 'userPromptSubmitted', 'preToolUse', 'postToolUse', 'agentStop', 'sessionEnd'];
    fs.writeFileSync(
      path.join(copilot, 'hooks', 'mine.json'),
      JSON.stringify({ version: 1, hooks: Object.fromEntries(events.map((e) => [e, [{ type: 'command', bash: touch(e), timeoutSec: 5 }]])) }),
    );
    fs.writeFileSync(
      path.join(copilot, 'mcp-config.json'),
      JSON.stringify({ mcpServers: { marker: { type: 'local', command: 'sh', args: ['-c', `${touch('mcp')}; sleep 30`], tools: ['*'] } } }),
    );
    return;
  }
  if (host === 'gemini-cli') {
    const file = path.join(home, '.gemini', 'settings.json');
    const settings = JSON.parse(fs.readFileSync(file, 'utf8'));
    settings.hooks = Object.fromEntries(
      ['SessionStart', 'BeforeAgent', 'AfterAgent', 'BeforeModel', 'SessionEnd'].map((e) => [
        e,
        [{ matcher: '*', hooks: [{ type: 'command', command: touch(e) }] }],
      ]),
    );
    settings.mcpServers = { marker: { command: 'sh', args: ['-c', `${touch('mcp')}; sleep 30`] } };
    fs.writeFileSync(file, JSON.stringify(settings, null, 2));
    return;
  }
  const codex = path.join(home, '.codex');
  fs.writeFileSync(
    path.join(codex, 'hooks.json'),
    JSON.stringify({
      hooks: Object.fromEntries(
        ['SessionStart', 'UserPromptSubmit', 'Stop', 'SessionEnd'].map((e) => [e, [{ hooks: [{ type: 'command', command: touch(e) }] }]]),
      ),
    }),
  );
  fs.appendFileSync(path.join(codex, 'config.toml'), `\n[mcp_servers.marker]\ncommand = "sh"\nargs = ["-c", ${JSON.stringify(`${touch('mcp')}; sleep 30`)}]\n`);
}

describe.each(['gemini-cli', 'codex', 'copilot'] as const)('the real %s as the observer', (host) => {
  const unavailable = hostUnavailableReason(host);
  let temp: ReturnType<typeof makeTempDir> | undefined;
  let api: FakeApi | undefined;
  let bin: SandboxedBin | undefined;
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    await bin?.close();
    await api?.close();
    temp?.cleanup();
  });

  it.skipIf(unavailable !== null)(
    'observes a turn in one call with the user’s login, starts no hook or MCP server of theirs, keeps no session',
    { timeout: 240_000 },
    async () => {
      temp = makeTempDir(`memtrace-${host}-obs-`);
      const home = path.join(temp.dir, 'home');
      const markers = path.join(temp.dir, 'markers');
      fs.mkdirSync(markers, { recursive: true });
      api = await startHostFakeApi(host, {
        projectDir: temp.dir,
        logFile: path.join(temp.dir, 'api.log'),
        script: [{ text: REPLY }],
        // Copilot's fake API is the shared harness's: a tool-less request follows the script.
        ...(host === 'copilot' ? { toollessMain: true } : { sideText: REPLY }),
      });
      prepareHostHome(host, home, api.port, null);
      userHooksAndMcp(host, home, markers);
      const binary = host === 'gemini-cli' ? 'gemini' : host;
      bin = await sandboxedBin(binary, HOST_BINS[host], [api.port]);
      const login =
        host === 'gemini-cli'
          ? { GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${api.port}`, GEMINI_API_KEY: 'fake-key' }
          : host === 'copilot'
            ? copilotFakeLogin(api.port)
            : { FAKE_OPENAI_API_KEY: 'fake-key' };
      const env = { PATH: `${bin.dir}:${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: home, LANG: 'C.UTF-8', MEMTRACE_TELEMETRY: '0', ...login };
      const dataDir = path.join(temp.dir, 'data');
      const chosen = chooseObserver(env, { dataDir });
      if ('error' in chosen) throw new Error(chosen.error);
      expect(chosen.choice.forPlatform(host)?.name).toBe(host);
      h = await startHarness(chosen.choice.primary, { observers: chosen.choice, dataDir, env, batch: DEFAULT_BATCH_LIMITS });

      const project = path.join(temp.dir, 'proj');
      await h.post('/api/sessions/init', { session_id: 'agent', project, prompt: 'extend the greeting', cwd: project, platform: host });
      for (let i = 1; i <= 3; i += 1)
        await h.post(
          '/api/sessions/observations',
          toolEvent('agent', i, { tool_name: 'run_shell_command', tool_input: { command: `step ${i}` }, cwd: project }),
        );
      await h.post('/api/sessions/summarize', { session_id: 'agent', last_assistant_message: 'out.txt says hello world' });
      await h.drained(180_000);

      const problems = h.log.records.filter((r) => r.level !== 'info').map((r) => `${r.message} ${JSON.stringify(r.fields)}`);
      expect(h.worker.store.observations.forSession('agent'), problems.join('\n')).toMatchObject([
        { title: 'out.txt says hello world', provider: host, sourceMessageIds: [2] },
      ]);
      expect(h.worker.store.summaries.forSession('agent')).toHaveLength(1);
      expect(h.worker.store.observerCalls.ofSession('agent')).toMatchObject({ calls: 1, events: 3, tokensIn: 100, tokensOut: 10 });
      // One model request: the observer's; the CLI made it with the login it found.
      const requests = api.requests().filter((r: any) => r.kind !== 'list-models');
      expect(requests).toHaveLength(1);
      expect(JSON.stringify(requests[0].body)).toContain('<event id=\\"e3\\"');
      // Isolated: no hook or MCP server of the user's started.
      expect(fs.readdirSync(markers)).toEqual([]);
      // No session left in the user's history, none captured by memtrace.
      if (host === 'copilot') {
        // Its own COPILOT_HOME per call: nothing in the user's session-state or searchable session store.
        expect(fs.readdirSync(path.join(home, '.copilot')).sort()).toEqual(['hooks', 'mcp-config.json']);
      } else if (host === 'gemini-cli') {
        const tmp = path.join(home, '.gemini', 'tmp');
        const chats = fs.existsSync(tmp) ? (fs.readdirSync(tmp, { recursive: true }) as string[]).filter((f) => f.endsWith('.jsonl')) : [];
        expect(chats).toEqual([]);
      } else {
        expect(fs.existsSync(path.join(home, '.codex', 'sessions'))).toBe(false);
      }
      expect(h.worker.store.db.prepare('SELECT session_id FROM sessions').all()).toEqual([{ session_id: 'agent' }]);
    },
  );
});
