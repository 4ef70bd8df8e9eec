import { describe, expect, it } from 'vitest';
import { codexAdapter } from '../../src/hosts/codex/adapter.js';
import { readExitCode, readLastAgentMessage } from '../../src/hosts/codex/rollout-tail.js';
import { adapterDepsFor, parseEvent } from '../../src/hosts/index.js';
import { hostPayload, hostPayloads, hostTranscript } from '../support/host-fixtures.js';

const adapt = (event: string, payload: Record<string, unknown>, deps = {}) => {
  const result = codexAdapter.toEvent(event, payload, deps);
  if (!result.ok || result.event === null) throw new Error(`not an event: ${JSON.stringify(result)}`);
  const checked = parseEvent(result.event.kind, result.event);
  if (!checked.ok) throw new Error(`fails the contract: ${JSON.stringify(checked.issues)}`);
  return result.event;
};

describe('the Codex adapter on captured payloads', () => {
  it('maps the session’s events with the turn id as prompt id, the model and the platform', () => {
    expect(adapt('SessionStart', hostPayload('codex', 'captured', '01-SessionStart'))).toMatchObject({
      kind: 'session_start',
      session_id: '01a212b7-b01d-77d1-9913-45ef779feaa1',
      source: 'startup',
      model: 'gpt-5.5',
      platform: 'codex',
      cwd: '/home/dev/run/proj',
    });
    expect(adapt('UserPromptSubmit', hostPayload('codex', 'captured', '02-UserPromptSubmit'))).toMatchObject({
      kind: 'user_prompt_submit',
      prompt: 'Create out.txt, read it, edit it, then cat a missing file.',
      prompt_id: '01a212b7-b044-7ba0-9d54-f242a4522893',
    });
    expect(adapt('Stop', hostPayload('codex', 'captured', '11-Stop'))).toMatchObject({
      kind: 'stop',
      last_assistant_message: 'All steps done: out.txt now says hello world; does-not-exist.txt is missing.',
      prompt_id: '01a212b7-b044-7ba0-9d54-f242a4522893',
    });
    expect(adapt('SessionEnd', hostPayload('codex', 'captured', '12-SessionEnd'))).toMatchObject({ kind: 'session_end', reason: 'other' });
  });

  it('keeps each tool call with its tool_use_id, input and response', () => {
    expect(adapt('PostToolUse', hostPayload('codex', 'captured', '06-PostToolUse'))).toMatchObject({
      kind: 'post_tool_use',
      tool_use_id: 'call_7aff6369160b49f1',
      tool_name: 'Bash',
      tool_input: { command: 'cat out.txt' },
      tool_response: 'hello\n',
    });
    expect(adapt('PostToolUse', hostPayload('codex', 'captured', '08-PostToolUse'))).toMatchObject({ kind: 'post_tool_use', tool_name: 'apply_patch' });
  });

  it('without the rollout, a failing shell command stays a plain tool event (its exit code is unknown)', () => {
    expect(adapt('PostToolUse', hostPayload('codex', 'captured', '10-PostToolUse')).kind).toBe('post_tool_use');
  });

  it('makes a patch whose response starts with a non-zero exit code a failure', () => {
    const payload = { ...hostPayload('codex', 'captured', '08-PostToolUse'), tool_response: 'Exit code: 1\nWall time: 0 seconds\nOutput:\npatch rejected\n' };
    expect(adapt('PostToolUse', payload)).toMatchObject({ kind: 'post_tool_use_failure', exit_code: 1, error: expect.stringContaining('Exit code 1') });
  });

  it('ignores Codex events memtrace does not handle and refuses a payload without a session', () => {
    expect(codexAdapter.toEvent('PreToolUse', hostPayload('codex', 'captured', '03-PreToolUse'), {})).toMatchObject({ ok: true, event: null });
    expect(codexAdapter.toEvent('Stop', {}, {})).toMatchObject({ ok: false });
  });
});

describe('Codex failures from the rollout, as the hook reads it', () => {
  const session = hostPayloads('codex', 'session');
  const rolloutThen = hostTranscript('codex', 'rollout-at-06-PostToolUse.jsonl');

  it('finds the running shell call’s exit code in the rollout written before the hook', () => {
    expect(readExitCode(rolloutThen, session[5]!.payload.tool_use_id as string)).toBe(1);
    expect(readExitCode(rolloutThen, session[3]!.payload.tool_use_id as string)).toBe(0);
    expect(readExitCode(rolloutThen, 'call_unknown')).toBeNull();
  });

  it('stores the failing cat as a failure with exit code 1, the others as tool events', () => {
    const deps = adapterDepsFor('codex');
    const kinds = session.filter((s) => s.event === 'PostToolUse').map((s) => adapt('PostToolUse', { ...s.payload, transcript_path: rolloutThen }, deps));
    expect(kinds.map((e) => e.kind)).toEqual(['post_tool_use', 'post_tool_use', 'post_tool_use', 'post_tool_use_failure']);
    expect(kinds[3]).toMatchObject({ exit_code: 1, error: 'Exit code 1\ncat: does-not-exist.txt: No such file or directory' });
  });

  it('reads the last agent message for a Stop that carries none', () => {
    expect(readLastAgentMessage(hostTranscript('codex', 'rollout.jsonl'))).toBe('All steps done: out.txt now says hello world; does-not-exist.txt is missing.');
    const stop = adapt(
      'Stop',
      { ...session[6]!.payload, last_assistant_message: null, transcript_path: hostTranscript('codex', 'rollout.jsonl') },
      adapterDepsFor('codex'),
    );
    expect(stop).toMatchObject({ last_assistant_message: 'All steps done: out.txt now says hello world; does-not-exist.txt is missing.' });
  });
});
