import { describe, expect, it } from 'vitest';
import { piAdapter } from '../../src/hosts/pi/adapter.js';
import { readLastPiAssistantText } from '../../src/hosts/pi/session-entries.js';
import { parseEvent } from '../../src/hosts/index.js';
import { adapterDepsFor } from '../../src/hosts/adapter-deps.js';
import { capturedFile, capturedStream } from '../support/in-process-fixtures.js';

const stream = capturedStream('pi');
const captured = (name: string, nth = 0) => stream.filter((c) => c.name === name)[nth]!.data;
const SESSION = '01a22454-b6a8-77cc-a9bf-3f24b40282d4';

const adapt = (event: string, body: Record<string, unknown>) => {
  const result = piAdapter.toEvent(event, body, adapterDepsFor('pi'));
  if (!result.ok || result.event === null) throw new Error(`not an event: ${JSON.stringify(result)}`);
  const checked = parseEvent(result.event.kind, result.event);
  if (!checked.ok) throw new Error(`fails the contract: ${JSON.stringify(checked.issues)}`);
  return result.event;
};

describe('the pi adapter on captured extension events', () => {
  it('starts the session with its reason, model, directory and session file', () => {
    const start = captured('session_start');
    expect(adapt('session_start', start)).toEqual({
      kind: 'session_start',
      session_id: SESSION,
      cwd: start.ctx.cwd,
      transcript_path: start.ctx.sessionFile,
      platform: 'pi',
      source: 'startup',
      model: 'fake/fake-model',
    });
    expect(adapt('before_agent_start', captured('before_agent_start'))).toMatchObject({
      kind: 'user_prompt_submit',
      prompt: 'Create out.txt, read it, edit it, then cat a missing file.',
    });
  });

  it('keeps each tool result with its call id; isError makes a failure, a bash one with its exit code', () => {
    const write = captured('tool_result', 0);
    expect(adapt('tool_result', write)).toMatchObject({
      kind: 'post_tool_use',
      tool_use_id: write.event.toolCallId,
      tool_name: 'bash',
      tool_input: { command: 'echo hello > out.txt && echo hi' },
      tool_response: { content: [{ type: 'text', text: 'hi\n' }] },
    });
    expect(adapt('tool_result', captured('tool_result', 3))).toMatchObject({
      kind: 'post_tool_use_failure',
      exit_code: 1,
      error: 'Exit code 1\ncat: does-not-exist.txt: No such file or directory',
    });
    expect(adapt('tool_result', captured('tool_result', 4))).toMatchObject({
      kind: 'post_tool_use_failure',
      tool_name: 'read',
      error: expect.stringMatching(/^ENOENT: no such file or directory/),
    });
  });

  it('ends the turn with the text the extension joined, else the session file’s last assistant text, and the session at shutdown', () => {
    const end = captured('agent_end');
    expect(adapt('agent_end', { event: { type: 'agent_end' }, ctx: end.ctx, last_assistant_message: 'Done.' })).toMatchObject({
      kind: 'stop',
      last_assistant_message: 'Done.',
    });
    expect(readLastPiAssistantText(capturedFile('pi', 'transcript-session.jsonl'))).toBe(
      'All steps done: out.txt now says hello world; does-not-exist.txt is missing.',
    );
    expect(adapt('session_shutdown', captured('session_shutdown'))).toMatchObject({ kind: 'session_end', reason: 'quit' });
  });

  it('reads what it understands of a newer pi’s events and ignores the rest', () => {
    const result = captured('tool_result', 1);
    const newer = {
      event: { ...result.event, durationMs: 12, content: [{ type: 'image', data: '…' }, ...result.event.content] },
      ctx: { ...result.ctx, extra: true },
    };
    expect(adapt('tool_result', newer)).toMatchObject({ kind: 'post_tool_use', tool_name: 'read' });
    expect(piAdapter.toEvent('session_tree', { event: { type: 'session_tree' }, ctx: result.ctx }, {})).toMatchObject({ ok: true, event: null });
    expect(piAdapter.toEvent('tool_result', { event: 'garbage', ctx: result.ctx }, {})).toMatchObject({ ok: false });
    expect(piAdapter.toEvent('tool_result', { event: result.event }, {})).toMatchObject({ ok: false });
  });
});
