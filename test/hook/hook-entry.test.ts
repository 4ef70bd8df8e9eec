import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listSpool, readWorkerInfo } from '../../src/data-dir/index.js';
import { runHook } from '../../src/hook/hook-entry.js';
import { MEMTRACE_BIN } from '../../src/cli/memtrace-bin.js';
import { createAnthropicProvider, createReplayProvider } from '../../src/providers/index.js';
import { captureIO } from '../support/cli-io.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { observationXml } from '../support/replies.js';
import { freePort } from '../support/free-port.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { holdWorkerStarts } from '../support/no-worker-starts.js';
import { startHarness, type Harness } from '../support/worker-harness.js';
import { openStore, type Store } from '../../src/store/index.js';
import { REMEMBERED_TITLE as REMEMBERED, rememberProjectOf } from '../support/memory-fixtures.js';

const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join('test/fixtures/claude-code/hooks', `${name}.json`), 'utf8')) as Record<string, unknown>;
/** Memory of the fixture session's project from an earlier session, so that its SessionStart has context to print. */
const rememberFixtureProject = (store: Store) => rememberProjectOf(store, fixture('session-start').cwd as string);
/** A provider that refuses, so every event stays in the queue to be inspected. */
const refusing = () => createReplayProvider({ lines: ['{"error":{"status":401,"type":"authentication_error"}}'] });

async function hook(name: string, input: unknown, env: Record<string, string>) {
  const c = captureIO({ stdin: JSON.stringify(input), env });
  const code = await runHook([name, '--via', 'settings'], { ...c.io, memtraceBin: MEMTRACE_BIN });
  return { code, stdout: c.stdout(), stderr: c.stderr() };
}

describe('memtrace hook against a real worker', () => {
  let h: Harness | undefined;
  let fake: FakeLlm | undefined;
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
    await fake?.close();
    fake = undefined;
    temp?.cleanup();
  });
  // A loaded machine can take seconds for a 3 MB event: these tests are about what is stored, not how fast.
  const envFor = (harness: Harness) => ({
    MEMTRACE_PORT: String(harness.worker.port),
    MEMTRACE_DATA_DIR: harness.dataDir,
    HOME: temp.dir,
    MEMTRACE_HOOK_TIMEOUT_MS: '60000',
  });
  const payloads = (harness: Harness) =>
    (
      harness.worker.store.db.prepare('SELECT kind, tool_use_id, payload FROM queue ORDER BY id').all() as Array<{
        kind: string;
        tool_use_id: string | null;
        payload: string;
      }>
    ).map((r) => ({ ...r, payload: JSON.parse(r.payload) }));

  it('stores every event Claude Code sends with its fields: prompts, tools, a failure, stop and end', async () => {
    temp = makeTempDir();
    h = await startHarness(refusing());
    const env = envFor(h);
    const sid = '11111111-2222-4333-8444-555555555555';
    rememberFixtureProject(h.worker.store);
    const start = await hook('session-start', fixture('session-start'), env);
    expect(start.code).toBe(0);
    expect(JSON.parse(start.stdout).hookSpecificOutput).toMatchObject({
      hookEventName: 'SessionStart',
      additionalContext: expect.stringContaining(REMEMBERED),
    });
    await hook('user-prompt-submit', fixture('user-prompt-submit'), env);
    await hook('user-prompt-submit', { ...fixture('user-prompt-submit'), prompt: 'and now the second prompt', prompt_id: 'p-2' }, env);
    for (const f of ['post-tool-use-bash', 'post-tool-use-read', 'post-tool-use-edit']) expect((await hook('post-tool-use', fixture(f), env)).stderr).toBe('');
    await hook('post-tool-use-failure', fixture('post-tool-use-failure-bash'), env);
    await hook('stop', fixture('stop'), env);
    await hook('session-end', fixture('session-end'), env);

    const session = h.worker.store.sessions.get(sid)!;
    expect(session).toMatchObject({
      cwd: '/home/user/project',
      project: '/home/user/project',
      source: 'startup',
      status: 'ended',
      endReason: 'other',
      transcriptPath: expect.stringContaining(`${sid}.jsonl`),
    });
    expect(h.worker.store.sessions.prompts(sid).map((p) => p.prompt)).toEqual([fixture('user-prompt-submit').prompt, 'and now the second prompt']);
    const queued = payloads(h);
    expect(queued.map((q) => [q.kind, q.tool_use_id])).toEqual([
      ['observation', 'toolu_e2e_bash_ok'],
      ['observation', 'toolu_e2e_read'],
      ['observation', 'toolu_e2e_edit'],
      ['observation', 'toolu_e2e_bash_fail'],
      ['summary', expect.stringMatching(/^summary:/)],
    ]);
    expect(queued[1]!.payload).toMatchObject({
      tool_name: 'Read',
      duration_ms: 6,
      prompt_id: expect.any(String),
      transcript_path: expect.any(String),
      tool_response: { file: { content: 'alpha\nbeta\n' } },
    });
    expect(queued[3]!.payload).toMatchObject({ tool_name: 'Bash', error: 'Exit code 3', is_interrupt: false });
    expect(queued[3]!.payload).not.toHaveProperty('tool_response');
    expect(queued[4]!.payload.last_assistant_message).toBe(fixture('stop').last_assistant_message);
    const health = JSON.parse((await h.get('/health')).text);
    expect(health.hooks).toMatchObject({ accepted: 9, rejected: 0, failed: 0 });
  });

  it('shows the observer a failed tool call as a failure', async () => {
    temp = makeTempDir();
    fake = await startFakeLlm('anthropic', { kind: 'text', text: observationXml({ type: 'bugfix', title: 'The build fails with exit code 3' }) });
    h = await startHarness(createAnthropicProvider({ apiKey: 'k', baseUrl: fake.url }));
    await hook('post-tool-use-failure', fixture('post-tool-use-failure-bash'), envFor(h));
    await h.drained();
    const prompt = JSON.stringify(fake.requests[0]!.body.messages);
    expect(prompt).toContain('result=\\"failed');
    expect(prompt).toContain('Exit code 3');
    expect(h.worker.store.observations.count()).toBe(1);
  });

  it('stores a 3 MB tool_response shortened, not lost, and counts it', async () => {
    temp = makeTempDir();
    h = await startHarness(refusing());
    const big = {
      ...fixture('post-tool-use-bash'),
      tool_use_id: 'toolu_big',
      tool_response: { stdout: `BEGIN${'z'.repeat(3 * 1024 * 1024)}END`, stderr: '', interrupted: false },
    };
    const r = await hook('post-tool-use', big, envFor(h));
    expect(r.stderr).toBe('');
    const [row] = payloads(h);
    expect(row!.tool_use_id).toBe('toolu_big');
    const stdout = row!.payload.tool_response.stdout as string;
    expect(stdout.startsWith('BEGINzzz')).toBe(true);
    expect(stdout.endsWith('zzzEND')).toBe(true);
    expect(stdout).toMatch(/elided \d+ characters/);
    expect(JSON.parse((await h.get('/health')).text).hooks.shortened).toBe(1);
  });

  it('keeps two repositories with the same folder name apart', async () => {
    temp = makeTempDir();
    h = await startHarness(refusing());
    const repos = ['team-a/api', 'team-b/api'].map((r) => path.join(temp.dir, r));
    for (const repo of repos) {
      fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
      execFileSync('git', ['init', '-q', repo]);
    }
    for (const [i, repo] of repos.entries())
      await hook('post-tool-use', { ...fixture('post-tool-use-read'), session_id: `s-${i}`, tool_use_id: `t-${i}`, cwd: path.join(repo, 'src') }, envFor(h));
    expect([0, 1].map((i) => h!.worker.store.sessions.get(`s-${i}`)?.project)).toEqual(repos);
  });

  it('keeps an event in the spool when no worker runs, and the worker replays it when it starts', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    const closed = await freePort();
    // The worker is started below, in this process: no hook may start one first.
    holdWorkerStarts(dataDir);
    const r = await hook('post-tool-use', fixture('post-tool-use-read'), { MEMTRACE_PORT: String(closed), MEMTRACE_DATA_DIR: dataDir, HOME: temp.dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('event kept in');
    expect(listSpool(dataDir)).toHaveLength(1);
    h = await startHarness(refusing(), { dataDir });
    expect(payloads(h).map((p) => p.tool_use_id)).toEqual(['toolu_e2e_read']);
    expect(listSpool(dataDir)).toHaveLength(0);
    expect(JSON.parse((await h.get('/health')).text).hooks).toMatchObject({ replayed_from_spool: 1, spooled_unreachable: 1 });
  });

  it('starts the worker from session-start when none runs; the next session gets its context', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    const port = await freePort();
    const env = {
      MEMTRACE_PORT: String(port),
      MEMTRACE_DATA_DIR: dataDir,
      HOME: temp.dir,
      MEMTRACE_PROVIDER: 'none',
      MEMTRACE_TELEMETRY: '0',
      PATH: process.env.PATH ?? '',
    };
    fs.mkdirSync(dataDir, { mode: 0o700 });
    const store = openStore(path.join(dataDir, 'memtrace.db'));
    rememberFixtureProject(store);
    store.close();
    const first = await hook('session-start', fixture('session-start'), env);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('');
    try {
      await waitFor(
        async () =>
          await fetch(`http://127.0.0.1:${port}/health`)
            .then((res) => res.ok)
            .catch(() => false),
        15_000,
      );
      const second = await hook('session-start', { ...fixture('session-start'), session_id: 'next-session' }, env);
      expect(JSON.parse(second.stdout).hookSpecificOutput.additionalContext).toMatch(new RegExp(`memtrace context[^]*${REMEMBERED}`));
      // The first session's start was spooled and replayed by the worker it started.
      await waitFor(() => listSpool(dataDir).length === 0, 5_000);
    } finally {
      const info = readWorkerInfo(dataDir);
      if (info) process.kill(info.pid, 'SIGTERM');
      await waitFor(() => readWorkerInfo(dataDir) === null, 10_000).catch(() => undefined);
    }
  });
});
