/**
 * `memtrace hook --host gemini-cli|codex|copilot <HostEvent>` against a real worker, fed the real payloads
 * of one captured session per host (test/fixtures/hosts): every event stored with its platform,
 * the failing command as a failure with its exit code, context printed the host's way.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runHook } from '../../src/hook/hook-entry.js';
import { MEMTRACE_BIN } from '../../src/cli/memtrace-bin.js';
import { createReplayProvider } from '../../src/providers/index.js';
import { captureIO } from '../support/cli-io.js';
import { freePort } from '../support/free-port.js';
import { hostPayloads, hostTranscript } from '../support/host-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';
import { holdWorkerStarts } from '../support/no-worker-starts.js';
import { startHarness, type Harness } from '../support/worker-harness.js';
import { waitFor } from '../support/wait-for.js';
import { listSpool } from '../../src/data-dir/index.js';
import { REMEMBERED_TITLE as REMEMBERED, rememberProjectOf } from '../support/memory-fixtures.js';

const rememberFor = (harness: Harness, cwd: unknown) => rememberProjectOf(harness.worker.store, String(cwd));

/** A provider that refuses, so every event stays in the queue to be inspected. */
const refusing = () => createReplayProvider({ lines: ['{"error":{"status":401,"type":"authentication_error"}}'] });

async function hook(args: string[], input: unknown, env: Record<string, string>) {
  const c = captureIO({ stdin: typeof input === 'string' ? input : JSON.stringify(input), env });
  const code = await runHook(args, { ...c.io, memtraceBin: MEMTRACE_BIN });
  return { code, stdout: c.stdout(), stderr: c.stderr() };
}

describe('memtrace hook --host', () => {
  let h: Harness | undefined;
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
    temp?.cleanup();
  });
  const envFor = (harness: Harness) => ({ MEMTRACE_PORT: String(harness.worker.port), MEMTRACE_DATA_DIR: harness.dataDir, HOME: temp.dir });
  const queued = (harness: Harness) =>
    (
      harness.worker.store.db.prepare('SELECT kind, tool_use_id, payload FROM queue ORDER BY id').all() as Array<{
        kind: string;
        tool_use_id: string | null;
        payload: string;
      }>
    ).map((r) => ({ ...r, payload: JSON.parse(r.payload) }));

  it('stores a whole Gemini CLI session: prompt, five tool calls with ids, two failures, the final answer, the end', async () => {
    temp = makeTempDir();
    h = await startHarness(refusing());
    const chat = hostTranscript('gemini-cli', 'chat.jsonl');
    rememberFor(h, hostPayloads('gemini-cli', 'session')[0]!.payload.cwd);
    const outputs: string[] = [];
    for (const { event, payload } of hostPayloads('gemini-cli', 'session')) {
      const r = await hook(['--host', 'gemini-cli', event, '--via', 'settings'], { ...payload, transcript_path: chat }, envFor(h));
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      outputs.push(r.stdout);
    }
    const sessionId = hostPayloads('gemini-cli', 'session')[0]!.payload.session_id as string;
    const session = h.worker.store.sessions.get(sessionId)!;
    expect(session).toMatchObject({ platform: 'gemini-cli', status: 'ended', endReason: 'exit', cwd: '/tmp/hr-gem3/proj', transcriptPath: chat });
    expect(h.worker.store.sessions.prompts(sessionId).map((p) => p.prompt)).toEqual(['Create out.txt, read it, edit it, then cat a missing file.']);
    const events = queued(h);
    expect(events.map((e) => e.payload.kind)).toEqual([
      'post_tool_use',
      'post_tool_use',
      'post_tool_use',
      'post_tool_use_failure',
      'post_tool_use_failure',
      'stop',
    ]);
    expect(new Set(events.slice(0, 5).map((e) => e.tool_use_id)).size).toBe(5);
    expect(events[3]!.payload).toMatchObject({
      tool_name: 'run_shell_command',
      exit_code: 1,
      error: expect.stringContaining('No such file'),
      platform: 'gemini-cli',
    });
    expect(events[5]!.payload.last_assistant_message).toContain('All steps done');
    const tools = h.worker.store.toolEvents.forSession(sessionId);
    expect(tools.map((t) => [t.toolName, t.failed, t.exitCode])).toEqual([
      ['run_shell_command', false, null],
      ['read_file', false, null],
      ['replace', false, null],
      ['run_shell_command', true, 1],
      ['read_file', true, null],
    ]);
    // Only session start prints, as the JSON Gemini reads as model context.
    expect(outputs.filter((o) => o !== '')).toHaveLength(1);
    expect(JSON.parse(outputs[0]!).hookSpecificOutput).toMatchObject({
      hookEventName: 'SessionStart',
      additionalContext: expect.stringMatching(new RegExp(`memtrace context[^]*${REMEMBERED}`)),
    });
    // One call per hook: SessionStart's context comes back in the same answer.
    expect(JSON.parse((await h.get('/health')).text).hooks).toMatchObject({ accepted: 9, rejected: 0, failed: 0 });
  });

  it('stores a whole Codex session with the failing cat as a failure read from the rollout', async () => {
    temp = makeTempDir();
    h = await startHarness(refusing());
    const rollout = hostTranscript('codex', 'rollout.jsonl');
    rememberFor(h, hostPayloads('codex', 'session')[0]!.payload.cwd);
    const outputs: string[] = [];
    for (const { event, payload } of hostPayloads('codex', 'session')) {
      const r = await hook(['--host', 'codex', event], { ...payload, transcript_path: rollout }, envFor(h));
      expect(r).toMatchObject({ code: 0, stderr: '' });
      outputs.push(r.stdout);
    }
    const first = hostPayloads('codex', 'session')[0]!.payload;
    const session = h.worker.store.sessions.get(first.session_id as string)!;
    expect(session).toMatchObject({ platform: 'codex', status: 'ended', source: 'startup' });
    const events = queued(h);
    expect(events.map((e) => e.payload.kind)).toEqual(['post_tool_use', 'post_tool_use', 'post_tool_use', 'post_tool_use_failure', 'stop']);
    expect(events.slice(0, 4).map((e) => e.tool_use_id)).toEqual(
      hostPayloads('codex', 'session')
        .filter((p) => p.event === 'PostToolUse')
        .map((p) => p.payload.tool_use_id),
    );
    expect(events[3]!.payload).toMatchObject({ tool_name: 'Bash', exit_code: 1, error: 'Exit code 1\ncat: does-not-exist.txt: No such file or directory' });
    // The turn id is the prompt id: the Stop's summary is queued once per prompt.
    expect(h.worker.store.queue.hasSeen(first.session_id as string, `summary:${events[4]!.payload.prompt_id}`)).toBe(true);
    expect(JSON.parse(outputs[0]!).hookSpecificOutput).toMatchObject({ hookEventName: 'SessionStart', additionalContext: expect.stringContaining(REMEMBERED) });
    expect(outputs.slice(1).filter((o) => o !== '')).toEqual([]);
  });

  it('prints nothing at a Codex SessionStart for a directory it remembers nothing of, as a hook that does nothing would', async () => {
    temp = makeTempDir();
    h = await startHarness(refusing());
    const start = hostPayloads('codex', 'session')[0]!;
    const r = await hook(['--host', 'codex', start.event], start.payload, envFor(h));
    expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(h.worker.store.sessions.get(start.payload.session_id as string)).toMatchObject({ platform: 'codex', status: 'active' });
  });

  it('stores a whole Copilot CLI session: the failing cat a failure, ids it derived, and the final text read from events.jsonl after the Stop', async () => {
    temp = makeTempDir();
    h = await startHarness(refusing());
    const eventsFile = hostTranscript('copilot', 'events.jsonl');
    const outputs: string[] = [];
    const session = hostPayloads('copilot', 'captured').filter((p) => /^[a-z]/.test(p.event));
    rememberFor(h, session[0]!.payload.cwd);
    for (const { event, payload } of session) {
      const r = await hook(['--host', 'copilot', event], event === 'agentStop' ? { ...payload, transcriptPath: eventsFile } : payload, envFor(h));
      expect(r).toMatchObject({ code: 0, stderr: '' });
      outputs.push(r.stdout);
    }
    const sessionId = session[0]!.payload.sessionId as string;
    expect(h.worker.store.sessions.get(sessionId)).toMatchObject({ platform: 'copilot', status: 'ended', endReason: 'complete', transcriptPath: eventsFile });
    const events = queued(h);
    expect(events.map((e) => e.payload.kind)).toEqual([
      'post_tool_use',
      'post_tool_use',
      'post_tool_use',
      'post_tool_use_failure',
      'post_tool_use_failure',
      'stop',
    ]);
    expect(new Set(events.slice(0, 5).map((e) => e.tool_use_id)).size).toBe(5);
    expect(events[3]!.payload).toMatchObject({ tool_name: 'bash', exit_code: 1, error: 'Exit code 1\ncat: does-not-exist.txt: No such file or directory' });
    expect(events[4]!.payload).toMatchObject({ tool_name: 'view', error: 'Path does not exist' });
    // The Stop came without its text; the worker read it from events.jsonl (already whole here).
    await waitFor(() => queued(h!).at(-1)!.payload.last_assistant_message !== undefined, 10_000);
    expect(queued(h).at(-1)!.payload.last_assistant_message).toBe('All steps done: out.txt now says hello world; does-not-exist.txt is missing.');
    // Only session start prints, as the JSON Copilot reads as model context (the preToolUse hook is ignored).
    expect(outputs.filter((o) => o !== '')).toHaveLength(1);
    expect(JSON.parse(outputs[0]!)).toEqual({ additionalContext: expect.stringMatching(new RegExp(`memtrace context[^]*${REMEMBERED}`)) });
    expect(JSON.parse((await h.get('/health')).text).hooks).toMatchObject({ rejected: 0, failed: 0 });
  });

  it('answers Gemini’s hooks with nothing on stderr when the worker is down: the warning goes to the hook log', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    const env = { MEMTRACE_PORT: String(await freePort()), MEMTRACE_DATA_DIR: dataDir, HOME: temp.dir };
    // The worker is started below, in this process: no hook may start one first.
    holdWorkerStarts(dataDir);
    const payload = hostPayloads('gemini-cli', 'session')[2]!.payload;
    const r = await hook(['--host', 'gemini-cli', 'AfterTool'], payload, env);
    expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(fs.readFileSync(path.join(dataDir, 'logs', 'hooks.log'), 'utf8')).toContain('worker not running');
    expect(fs.statSync(path.join(dataDir, 'logs', 'hooks.log')).mode & 0o777).toBe(0o600);
    expect(listSpool(dataDir)).toHaveLength(1);
    h = await startHarness(refusing(), { dataDir });
    expect(queued(h).map((e) => e.payload.platform)).toEqual(['gemini-cli']);
  });

  it('never blocks the agent: an unknown host or event, or bad JSON, is a warning and exit code 0', async () => {
    temp = makeTempDir();
    const env = { MEMTRACE_DATA_DIR: path.join(temp.dir, 'data'), HOME: temp.dir, MEMTRACE_PORT: String(await freePort()) };
    holdWorkerStarts(env.MEMTRACE_DATA_DIR);
    expect(await hook(['--host', 'codex', 'PreToolUse'], { session_id: 's' }, env)).toMatchObject({ code: 0, stdout: '' });
    expect(await hook(['--host', 'codex', 'Stop'], 'not json', env)).toMatchObject({ code: 0, stderr: expect.stringContaining('not valid JSON') });
    expect(await hook(['--host', 'cursor', 'Stop'], {}, env)).toMatchObject({
      code: 0,
      stderr: expect.stringContaining('--host takes claude-code, gemini-cli, codex, opencode, copilot or pi'),
    });
    expect(await hook(['--host', 'gemini-cli'], {}, env)).toMatchObject({ code: 0, stderr: '' });
    // Claude Code too: a wrong hook line is reported, never a blocking exit code; its own event names are accepted.
    expect(await hook(['nope'], {}, env)).toMatchObject({ code: 0, stderr: expect.stringContaining("unknown hook 'nope'") });
    expect(await hook(['--host', 'claude-code', 'PostToolUse'], { session_id: 's', tool_name: 'Read', tool_input: {}, tool_response: {} }, env)).toMatchObject({
      code: 0,
      stderr: expect.stringContaining('event kept in'),
    });
  });
});
