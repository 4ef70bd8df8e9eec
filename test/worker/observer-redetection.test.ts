import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIO } from '../support/cli-io.js';
import { startChildWorker, type ChildWorker } from '../support/child-worker.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Issue 35, item 5: the observer was chosen once, when the worker started, so a user who installed
 * or logged in to their agent CLI afterwards was told to restart the worker. Here a stand-in
 * `claude` answers as `claude -p` does (the real one runs in test/e2e/claude-code-observer.test.ts);
 * the worker is the real `memtrace worker` process, and a session start is what makes it look again.
 */
const OBSERVATION =
  '{"type":"result","subtype":"success","is_error":false,"result":"<observation type=\\"discovery\\"><title>seen after the CLI appeared</title><sources><event>e1</event></sources></observation>","usage":{"input_tokens":900,"output_tokens":60},"total_cost_usd":0.0012,"modelUsage":{"claude-haiku-4-5":{}}}';
const LOGGED_OUT = [
  '{"type":"system","subtype":"init","apiKeySource":"none"}',
  '{"type":"assistant","message":{"content":[{"type":"text","text":"Not logged in"}]},"error":"authentication_failed"}',
  '{"type":"result","subtype":"success","is_error":true,"result":"Not logged in","usage":{"input_tokens":0,"output_tokens":0},"modelUsage":{}}',
];
/** `claude -p` that is logged out until the file `logged-in` exists beside it. */
const fakeClaude = (dir: string) => `#!/bin/sh
cat > /dev/null
if [ -f '${dir}/logged-in' ]; then
  echo '{"type":"system","subtype":"init","apiKeySource":"none"}'
  echo '${OBSERVATION}'
else
${LOGGED_OUT.map((line) => `  echo '${line}'`).join('\n')}
fi
`;

describe('the observer, looked at again while the worker runs', () => {
  let temp: ReturnType<typeof makeTempDir> | undefined;
  let worker: ChildWorker | undefined;
  afterEach(async () => {
    await worker?.stop();
    temp?.cleanup();
  });

  const setUp = async () => {
    temp = makeTempDir();
    const bin = path.join(temp.dir, 'bin');
    fs.mkdirSync(bin);
    const dataDir = path.join(temp.dir, 'data');
    const env = { PATH: `${bin}:/usr/bin:/bin`, HOME: temp.dir, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0' };
    worker = await startChildWorker(env);
    const w = worker;
    const post = (route: string, body: unknown) =>
      fetch(`${w.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json', ...w.auth }, body: JSON.stringify(body) });
    const health = async () => (await (await fetch(`${w.url}/health`)).json()) as Record<string, any>;
    const turn = async (session: string) => {
      for (let i = 1; i <= 2; i += 1)
        await post('/api/sessions/observations', {
          session_id: session,
          tool_use_id: `${session}-${i}`,
          tool_name: 'Bash',
          tool_input: { command: `ls ${i}` },
          tool_response: 'ok',
        });
      await post('/api/sessions/summarize', { session_id: session, last_assistant_message: 'done' });
    };
    return { bin, dataDir, env, post, health, turn };
  };

  it('picks up an agent CLI installed after the start at the next session start, and worker status says which and why', async () => {
    const { bin, dataDir, env, post, health, turn } = await setUp();
    expect(worker!.output()).toContain('no API key is set and no agent CLI (claude, gemini, codex, opencode, copilot, pi) is on PATH');
    await turn('before-install');
    expect(await health()).toMatchObject({ provider: 'none', observing: false, queue_depth: 3 });

    fs.writeFileSync(path.join(bin, 'claude'), fakeClaude(bin), { mode: 0o755 });
    fs.writeFileSync(path.join(bin, 'logged-in'), '');
    await post('/api/sessions/init', { session_id: 'next-session', project: '/work/app' });

    // The turn that waited while nothing observed is observed now, by the CLI that appeared (within
    // 20 s: the worker's own look on its 30 s tick must not be what found it).
    await waitFor(async () => (await health()).queue_depth === 0, 20_000);
    const after = await health();
    expect(after).toMatchObject({ provider: 'claude-code', observing: true, observer: { state: 'observing', today: { calls: 1, events: 2 } } });
    expect(after.observer.line).toMatch(/^observer: each session’s own agent CLI, .*claude-code found.* \(noticed at \d{4}-.*, without a restart\)$/);

    // Run from a shell where a key is set that the worker never saw: said, with how to apply it.
    const status = captureIO({ env: { ...env, ANTHROPIC_API_KEY: 'sk-ant-later', MEMTRACE_DATA_DIR: dataDir } });
    expect(await main(['worker', 'status'], status.io)).toBe(0);
    expect(status.stdout()).toContain('claude-code found');
    expect(status.stdout()).toContain(
      "ANTHROPIC_API_KEY is set here but not in the running worker's environment (it started without it); apply: memtrace worker stop && memtrace worker start",
    );
    expect(status.stdout()).not.toContain('sk-ant-later');
    const json = captureIO({ env: { ...env, ANTHROPIC_API_KEY: 'sk-ant-later', MEMTRACE_DATA_DIR: dataDir } });
    await main(['worker', 'status', '--json'], json.io);
    expect(JSON.parse(json.stdout()).observer).toMatchObject({ env_seen: [], env_unseen: ['ANTHROPIC_API_KEY'] });
  }, 120_000);

  it('tries a CLI that was logged out again at the next session start, not after its backoff', async () => {
    const { bin, dataDir, post, health, turn } = await setUp();
    const log = () => fs.readFileSync(path.join(dataDir, 'logs', 'worker.log'), 'utf8');
    const EXPEDITED = 'a session started: the provider that refused gets its probe call now';
    fs.writeFileSync(path.join(bin, 'claude'), fakeClaude(bin), { mode: 0o755 });
    await post('/api/sessions/init', { session_id: 'first', project: '/work/app' });
    await turn('first');
    await waitFor(async () => (await health()).degraded.some((d: { reason: string }) => d.reason === 'auth'), 60_000);
    const wait = (await health()).degraded.find((d: { reason: string }) => d.reason === 'auth');
    // The refusal waits for its backoff (30 s at first) unless something a person does ends it.
    expect(Date.parse(wait.next_attempt_at)).toBeGreaterThan(Date.now());
    expect(log()).not.toContain(EXPEDITED);

    fs.writeFileSync(path.join(bin, 'logged-in'), '');
    await post('/api/sessions/init', { session_id: 'second', project: '/work/app' });
    // The session start moved the probe to now (said in the log), whatever the machine's load makes of the time after.
    await waitFor(() => log().includes(EXPEDITED));
    await waitFor(async () => (await health()).queue_depth === 0, 60_000);
    expect(await health()).toMatchObject({ status: 'ok', observer: { state: 'observing' } });
  }, 120_000);
});
