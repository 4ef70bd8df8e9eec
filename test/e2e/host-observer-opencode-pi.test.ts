/**
 * SLOW: the REAL OpenCode and pi (pinned devDependencies) as memtrace's observer, each logged in
 * the way the user set it up (a provider in their config pointing at the fake API), inside a
 * loopback-only network namespace. A turn's events become observations in one call; the user's
 * own plugins, extensions and MCP servers never start; no session of the observer is kept in
 * the host's store or captured by memtrace.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chooseObserver } from '../../src/providers/index.js';
import { DEFAULT_BATCH_LIMITS } from '../../src/worker/batch-policy.js';
import { IN_PROCESS_BINS, inProcessHostUnavailableReason, prepareInProcessHome, startFakeModelApi, type FakeApi } from '../support/in-process-hosts.js';
import { sandboxedBin, type SandboxedBin } from '../support/observer-cli.js';
import { observationXml, summaryXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';

const REPLY =
  observationXml({ type: 'change', title: 'out.txt says hello world', narrative: 'The greeting was extended.', sources: ['e2'] }) +
  summaryXml({ request: 'extend the greeting', completed: 'out.txt says hello world' });

/** The user's own plugin (extension) and MCP server, each leaving a marker if it ever runs. */
function userPluginAndMcp(host: 'opencode' | 'pi', home: string, markers: string): void {
  const touch = (what: string) => `process.getBuiltinModule('node:fs').writeFileSync(${JSON.stringify(path.join(markers, what))}, '')`;
  if (host === 'opencode') {
    const config = path.join(home, '.config', 'opencode');
    fs.mkdirSync(path.join(config, 'plugins'), { recursive: true });
    fs.writeFileSync(path.join(config, 'plugins', 'marker.js'), `export const Marker = async () => { ${touch('plugin')}; return {}; };\n`);
    const file = path.join(config, 'opencode.json');
    const settings = JSON.parse(fs.readFileSync(file, 'utf8'));
    settings.mcp = { marker: { type: 'local', command: ['sh', '-c', `touch "${path.join(markers, 'mcp')}"; sleep 30`], enabled: true } };
    fs.writeFileSync(file, JSON.stringify(settings, null, 2));
    return;
  }
  const agent = path.join(home, '.pi', 'agent');
  fs.mkdirSync(path.join(agent, 'extensions'), { recursive: true });
  fs.writeFileSync(path.join(agent, 'extensions', 'marker.ts'), `export default function () { ${touch('extension')}; }\n`);
  fs.writeFileSync(path.join(agent, 'settings.json'), JSON.stringify({ defaultProvider: 'fake', defaultModel: 'fake-model' }));
  fs.writeFileSync(path.join(agent, 'AGENTS.md'), 'Always mention the canary-context-file.\n');
}

describe.each(['opencode', 'pi'] as const)('the real %s as the observer', (host) => {
  const unavailable = inProcessHostUnavailableReason(host);
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
    'observes a turn in one call with the user’s login, starts no plugin, extension or MCP server of theirs, keeps no session',
    { timeout: 300_000 },
    async () => {
      temp = makeTempDir(`mt-${host}-obs-`);
      const home = path.join(temp.dir, 'home');
      const markers = path.join(temp.dir, 'markers');
      fs.mkdirSync(markers, { recursive: true });
      api = await startFakeModelApi({ projectDir: temp.dir, logFile: path.join(temp.dir, 'api.log'), script: [{ text: REPLY }], toollessMain: true });
      prepareInProcessHome(host, home, api.port);
      userPluginAndMcp(host, home, markers);
      bin = await sandboxedBin(host, IN_PROCESS_BINS[host], [api.port]);
      const login = host === 'pi' ? { FAKE_API_KEY: 'fake-key' } : {};
      const env = { PATH: `${bin.dir}:${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: home, LANG: 'C.UTF-8', MEMTRACE_TELEMETRY: '0', ...login };
      const dataDir = path.join(temp.dir, 'data');
      const chosen = chooseObserver(env, { dataDir });
      if ('error' in chosen) throw new Error(chosen.error);
      expect(chosen.choice.forPlatform(host)?.name).toBe(host);
      expect(chosen.choice.describe(host)).toMatch(new RegExp(`^observer: ${host} \\(default\\) — no API key is set; ${host} is on PATH`));
      h = await startHarness(chosen.choice.primary, { observers: chosen.choice, dataDir, env, batch: DEFAULT_BATCH_LIMITS });

      const project = path.join(temp.dir, 'proj');
      await h.post('/api/sessions/init', { session_id: 'agent', project, prompt: 'extend the greeting', cwd: project, platform: host });
      for (let i = 1; i <= 3; i += 1)
        await h.post('/api/sessions/observations', toolEvent('agent', i, { tool_name: 'bash', tool_input: { command: `step ${i}` }, cwd: project }));
      await h.post('/api/sessions/summarize', { session_id: 'agent', last_assistant_message: 'out.txt says hello world' });
      await h.drained(240_000);

      const problems = h.log.records.filter((r) => r.level !== 'info').map((r) => `${r.message} ${JSON.stringify(r.fields)}`);
      expect(h.worker.store.observations.forSession('agent'), problems.join('\n')).toMatchObject([
        { title: 'out.txt says hello world', provider: host, sourceMessageIds: [2] },
      ]);
      expect(h.worker.store.summaries.forSession('agent')).toHaveLength(1);
      expect(h.worker.store.observerCalls.ofSession('agent')).toMatchObject({ calls: 1, events: 3, tokensIn: 100, tokensOut: 10 });
      // One model request, the observer's, with no tools and the observer's own system prompt.
      const requests = api.requests();
      expect(requests).toHaveLength(1);
      const body = JSON.stringify(requests[0].body);
      expect(body).toContain('<event id=\\"e3\\"');
      expect(requests[0].tool_names).toEqual([]);
      expect(body).not.toContain('canary-context-file');
      // Isolated: no plugin, extension or MCP server of the user's started.
      expect(fs.readdirSync(markers)).toEqual([]);
      // No session kept: OpenCode's store holds none (its store was in memory), pi wrote no session file.
      if (host === 'opencode') expect(fs.existsSync(path.join(home, '.local', 'share', 'opencode', 'opencode.db'))).toBe(false);
      else expect(fs.existsSync(path.join(home, '.pi', 'agent', 'sessions'))).toBe(false);
      expect(h.worker.store.db.prepare('SELECT session_id FROM sessions').all()).toEqual([{ session_id: 'agent' }]);
      // The call's own TMPDIR (where OpenCode unpacks a 5.5 MB library each start) is gone.
      expect(fs.readdirSync(path.join(dataDir, 'observer', host)).filter((n) => n.startsWith('tmp-'))).toEqual([]);
    },
  );
});
