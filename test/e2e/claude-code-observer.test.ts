/**
 * SLOW: the REAL Claude Code CLI (pinned devDependency) as memtrace's observer, logged in the way
 * a subscription user is — an OAuth credentials file in a scratch HOME, no API key anywhere — and
 * offline: it runs inside a loopback-only network namespace whose one way out is a fake Anthropic
 * API. It must turn a turn's events into observations with one call, run none of the user's hooks,
 * leave no transcript, never be captured as a session itself, and type its failures from its own
 * structured output.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { OBSERVER_SYSTEM } from '../../src/observer/prompts.js';
import { chooseObserver } from '../../src/providers/index.js';
import { DEFAULT_BATCH_LIMITS } from '../../src/worker/batch-policy.js';
import { basicScript, BASIC_PROMPT, writeBasicProject } from '../support/claude-code-scenario.js';
import { CLAUDE_BIN, claudeUnavailableReason, loopbackSandboxAvailable, runClaudeCode } from '../support/claude-code.js';
import { captureIO } from '../support/cli-io.js';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { claudeTranscripts, OAUTH_TOKEN, oauthClaudeHome, sandboxedBin, type SandboxedBin } from '../support/observer-cli.js';
import { observationXml, summaryXml } from '../support/replies.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';

const unavailable = claudeUnavailableReason() ?? (loopbackSandboxAvailable() ? null : 'unshare -n is not available here');
if (unavailable) console.warn(`skipping the Claude Code observer e2e test: ${unavailable}`);

const CANARY = 'MEMTRACE-USER-MEMORY-CANARY';
const REPLY =
  observationXml({
    type: 'bugfix',
    title: 'notes.txt now says gamma',
    narrative: 'beta was replaced by gamma.',
    filesModified: ['notes.txt'],
    sources: ['e3'],
  }) + summaryXml({ request: 'edit notes', completed: 'notes.txt says gamma' });

describe.skipIf(unavailable !== null)('the real Claude Code as the observer, logged in with OAuth and no key', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let fake: FakeAnthropic | undefined;
  let bin: SandboxedBin | undefined;
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
    await bin?.close();
    await fake?.close();
    temp?.cleanup();
  });

  async function setUp(options: { loggedIn?: boolean; auxiliaryFailure?: Parameters<typeof startFakeAnthropic>[0]['auxiliaryFailure'] } = {}) {
    temp = makeTempDir('memtrace-cc-obs-');
    const home = path.join(temp.dir, 'home');
    const markers = path.join(temp.dir, 'hook-markers');
    fs.mkdirSync(markers, { recursive: true });
    oauthClaudeHome(home, { hookMarkers: markers, memoryCanary: CANARY, loggedIn: options.loggedIn ?? true });
    fake = await startFakeAnthropic({ script: [], auxiliaryText: REPLY, ...(options.auxiliaryFailure ? { auxiliaryFailure: options.auxiliaryFailure } : {}) });
    bin = await sandboxedBin('claude', CLAUDE_BIN, [fake.port]);
    // What the worker inherits from the agent host: PATH with claude on it, HOME, the API base URL. No key.
    const env = { PATH: `${bin.dir}:/usr/bin:/bin`, HOME: home, LANG: 'C.UTF-8', ANTHROPIC_BASE_URL: fake.url, MEMTRACE_TELEMETRY: '0' };
    const dataDir = path.join(temp.dir, 'data');
    const chosen = chooseObserver(env, { dataDir });
    if ('error' in chosen) throw new Error(chosen.error);
    h = await startHarness(chosen.choice.primary, { observers: chosen.choice, dataDir, env, batch: DEFAULT_BATCH_LIMITS });
    return { home, markers, dataDir, choice: chosen.choice };
  }

  async function playTurn(sessionId: string, cwd: string) {
    await h!.post('/api/sessions/init', { session_id: sessionId, project: cwd, prompt: 'edit notes', cwd, platform: 'claude-code' });
    for (const [i, tool] of ['Bash', 'Read', 'Edit'].entries())
      await h!.post(
        '/api/sessions/observations',
        toolEvent(sessionId, i + 1, { tool_name: tool, tool_input: { file_path: `${cwd}/notes.txt`, command: 'ls' }, cwd }),
      );
    await h!.post('/api/sessions/summarize', { session_id: sessionId, last_assistant_message: 'notes.txt says gamma' });
  }

  it('observes a turn in one call with the OAuth login, runs no user hook, leaves no transcript and is never captured', { timeout: 180_000 }, async () => {
    const { home, markers, dataDir, choice } = await setUp();
    expect(choice.describe('claude-code')).toBe('observer: claude-code (haiku) — no API key is set; claude is on PATH and observes with your own login');
    const project = path.join(temp.dir, 'project');
    fs.mkdirSync(project);
    await playTurn('agent-session', project);
    await h!.drained(120_000);

    const observations = h!.worker.store.observations.forSession('agent-session');
    expect(observations).toMatchObject([{ title: 'notes.txt now says gamma', provider: 'claude-code', sourceMessageIds: [3] }]);
    expect(h!.worker.store.summaries.forSession('agent-session')).toHaveLength(1);
    // One model call for the whole turn, sent with the OAuth token as a bearer and no API key.
    const calls = fake!.requests.filter((r) => r.kind === 'auxiliary');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers.authorization).toBe(`Bearer ${OAUTH_TOKEN}`);
    expect(calls[0]!.headers['x-api-key']).toBeUndefined();
    expect(JSON.stringify(calls[0]!.body.system)).toContain(OBSERVER_SYSTEM.slice(0, 60));
    expect(calls[0]!.body.tools ?? []).toEqual([]);
    expect(calls[0]!.body.max_tokens).toBe(4096);
    // Isolated: no hook of the user's fired, their CLAUDE.md was not sent, no session was kept.
    expect(fs.readdirSync(markers)).toEqual([]);
    expect(JSON.stringify(calls[0]!.body)).not.toContain(CANARY);
    expect(claudeTranscripts(home)).toEqual([]);
    // Never captured: the only session memtrace knows is the agent's own.
    expect(h!.worker.store.db.prepare('SELECT session_id FROM sessions').all()).toEqual([{ session_id: 'agent-session' }]);
    expect(fs.readdirSync(path.join(dataDir, 'observer', 'claude-code')).filter((n) => n.startsWith('tmp-'))).toEqual([]);
    // Spend as Claude Code reported it (its own cost figure: known, not estimated).
    expect(h!.worker.store.observerCalls.ofSession('agent-session')).toMatchObject({ calls: 1, events: 3, tokensIn: 100, tokensOut: 20, costEstimated: false });
    const status = captureIO({ env: { MEMTRACE_DATA_DIR: dataDir, HOME: home } });
    await main(['worker', 'status'], status.io);
    expect(status.stdout()).toContain('observer     each session’s own agent CLI, with your own login (claude-code found');
    expect(status.stdout()).toMatch(/spend today {2}1 call\(s\) for 3 tool event\(s\), 100 tokens in \/ 20 out/);
  });

  it('a logged-out Claude Code: a typed wait for every session, one probe, nothing lost, one clear status line', { timeout: 180_000 }, async () => {
    const { dataDir, home } = await setUp({ loggedIn: false });
    await playTurn('a', path.join(temp.dir, 'a'));
    await playTurn('b', path.join(temp.dir, 'b'));
    await waitFor(async () => JSON.parse((await h!.get('/health')).text).observer.waits.length > 0, 120_000);
    await waitFor(async () => JSON.parse((await h!.get('/health')).text).in_flight === 0, 60_000);
    const health = JSON.parse((await h!.get('/health')).text);
    expect(health.observer.waits).toMatchObject([{ provider: 'claude-code', reason: 'auth', detail: 'logged_out' }]);
    expect(h!.worker.store.queue.depth()).toBe(8);
    // No storm: at most one call per slot (concurrency 2) went before the wait closed the provider
    // for every session; none reached the API (nobody is logged in) and none counts against the budget.
    const [today] = h!.worker.store.observerCalls.byDay(1);
    expect(today!.calls).toBeLessThanOrEqual(2);
    expect(today).toMatchObject({ callsUsageUnknown: 0, counted: 0 });
    expect(fake!.requests.filter((r) => r.kind === 'auxiliary')).toHaveLength(0);
    const status = captureIO({ env: { MEMTRACE_DATA_DIR: dataDir, HOME: home } });
    await main(['worker', 'status'], status.io);
    expect(status.stdout()).toContain('observer waiting: claude-code is not logged in (log in to it, or set a key)');
  });

  it('a usage limit reached: a quota wait until the reset Claude Code reported, the turn kept', { timeout: 180_000 }, async () => {
    const resetAt = Math.floor(Date.now() / 1000) + 1800;
    await setUp({
      auxiliaryFailure: () => ({
        status: 429,
        type: 'rate_limit_error',
        headers: {
          'anthropic-ratelimit-unified-status': 'rejected',
          'anthropic-ratelimit-unified-representative-claim': 'five_hour',
          'anthropic-ratelimit-unified-reset': String(resetAt),
        },
      }),
    });
    await playTurn('limited', path.join(temp.dir, 'limited'));
    await waitFor(async () => JSON.parse((await h!.get('/health')).text).observer.waits.length > 0, 120_000);
    const wait = JSON.parse((await h!.get('/health')).text).observer.waits[0];
    expect(wait).toMatchObject({ provider: 'claude-code', reason: 'quota', detail: 'usage_limit' });
    // Honoured up to the worker's one-hour cap on a provider's wait.
    expect(Math.abs(Date.parse(wait.next_attempt_at) - resetAt * 1000)).toBeLessThan(120_000);
    expect(h!.worker.store.queue.depth()).toBe(4);
  });
});

describe.skipIf(unavailable !== null)('memtrace installed into the real Claude Code, the agent and the observer both on OAuth', () => {
  it('a new user with no key anywhere gets observations from their first session', { timeout: 240_000 }, async () => {
    const temp = makeTempDir('memtrace-cc-new-user-');
    const home = path.join(temp.dir, 'home');
    const markers = path.join(temp.dir, 'markers');
    fs.mkdirSync(markers, { recursive: true });
    oauthClaudeHome(home, { hookMarkers: markers, memoryCanary: CANARY });
    const project = path.join(temp.dir, 'shop');
    fs.mkdirSync(project);
    execFileSync('git', ['init', '-q', project]);
    const notes = writeBasicProject(project);
    const api = await startFakeAnthropic({ script: basicScript(notes), auxiliaryText: REPLY });
    const bin = await sandboxedBin('claude', CLAUDE_BIN, [api.port]);
    const dataDir = path.join(temp.dir, 'memtrace-data');
    const env = { PATH: `${bin.dir}:/usr/bin:/bin`, HOME: home, LANG: 'C.UTF-8', ANTHROPIC_BASE_URL: api.url, MEMTRACE_TELEMETRY: '0' };
    const chosen = chooseObserver(env, { dataDir });
    if ('error' in chosen) throw new Error(chosen.error);
    const h = await startHarness(chosen.choice.primary, { observers: chosen.choice, dataDir, env, batch: DEFAULT_BATCH_LIMITS });
    try {
      const install = captureIO({ env: { ...env, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PORT: String(h.worker.port) } });
      expect(await main(['install', '--project', project], install.io), install.stderr()).toBe(0);
      expect(install.stdout()).toContain('observer: claude-code (haiku) — no API key is set; claude is on PATH and observes with your own login');
      fs.rmSync(path.join(project, '.mcp.json'));
      const run = await runClaudeCode({
        projectDir: project,
        prompt: BASIC_PROMPT,
        apiUrl: api.url,
        home,
        // The agent is logged in the same way: no key in its environment either.
        env: { ANTHROPIC_API_KEY: '', MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PORT: String(h.worker.port), MEMTRACE_TELEMETRY: '0' },
        forwardPorts: [h.worker.port],
      });
      expect(run.exitCode, run.stderr).toBe(0);
      const sessionId = run.json.session_id as string;
      await waitFor(() => h.worker.store.observations.forSession(sessionId).length > 0, 120_000);
      expect(h.worker.store.observations.forSession(sessionId)[0]).toMatchObject({ provider: 'claude-code', title: 'notes.txt now says gamma' });
      expect(api.requests.filter((r) => r.kind !== 'other').every((r) => r.headers.authorization === `Bearer ${OAUTH_TOKEN}`)).toBe(true);
      // The observer's own session never became a memtrace session.
      expect((h.worker.store.db.prepare('SELECT session_id FROM sessions').all() as Array<{ session_id: string }>).map((r) => r.session_id)).toEqual([
        sessionId,
      ]);
    } finally {
      await h.stop();
      await bin.close();
      await api.close();
      temp.cleanup();
    }
  });
});
