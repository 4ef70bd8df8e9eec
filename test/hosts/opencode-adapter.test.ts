import { describe, expect, it } from 'vitest';
import { openCodeAdapter } from '../../src/hosts/opencode/adapter.js';
import { parseEvent } from '../../src/hosts/index.js';
import { capturedStream } from '../support/in-process-fixtures.js';

const stream = capturedStream('opencode');
const captured = (name: string, nth = 0) => stream.filter((c) => c.name === name)[nth]!.data;
const DIRECTORY = '/home/dev/proj';
const SESSION = 'ses_ddbb1cf0affe5QmGFXt8o1DXVb';
const TRANSCRIPT = `/home/dev/.local/share/opencode/opencode.db#${SESSION}`;

/** The body memtrace's plugin posts: OpenCode's own arguments plus what the plugin joined. */
const adapt = (event: string, body: Record<string, unknown>) => {
  const result = openCodeAdapter.toEvent(event, { directory: DIRECTORY, transcript_path: TRANSCRIPT, ...body }, {});
  if (!result.ok || result.event === null) throw new Error(`not an event: ${JSON.stringify(result)}`);
  const checked = parseEvent(result.event.kind, result.event);
  if (!checked.ok) throw new Error(`fails the contract: ${JSON.stringify(checked.issues)}`);
  return result.event;
};

describe('the OpenCode adapter on captured plugin payloads', () => {
  it('starts the session in the instance’s directory, with the store as its transcript', () => {
    expect(adapt('session.created', { event: captured('event.session.created'), source: 'startup' })).toEqual({
      kind: 'session_start',
      session_id: SESSION,
      cwd: DIRECTORY,
      transcript_path: TRANSCRIPT,
      platform: 'opencode',
      source: 'startup',
    });
    // A session the plugin first saw at a message (continued in the TUI) is a resumed one.
    expect(adapt('session.created', { event: { type: 'session.created', properties: { sessionID: SESSION } }, source: 'resume' })).toMatchObject({
      kind: 'session_start',
      source: 'resume',
    });
  });

  it('takes the prompt from the message’s own text parts, without the quotes `opencode run` adds or memtrace’s synthetic part', () => {
    const { input, output } = captured('chat.message');
    const parts = [...output.parts, { type: 'text', synthetic: true, text: '# memtrace context', id: 'prt_x' }];
    expect(adapt('chat.message', { input, output: { ...output, parts } })).toMatchObject({
      kind: 'user_prompt_submit',
      prompt: 'Create out.txt, read it, edit it, then cat a missing file.',
      prompt_id: 'msg_2244e3167001jI38k452Ac8bO6',
    });
  });

  it('keeps each tool call with its call id, args and result; a bash call that exited non-zero is a failure with its exit code', () => {
    const write = captured('tool.execute.after', 0);
    expect(adapt('tool.execute.after', write)).toMatchObject({
      kind: 'post_tool_use',
      tool_use_id: write.input.callID,
      tool_name: 'bash',
      tool_input: { command: 'echo hello > out.txt && echo hi', description: 'write out.txt' },
      tool_response: { output: 'hi\n', metadata: { exit: 0 } },
    });
    const cat = captured('tool.execute.after', 3);
    expect(adapt('tool.execute.after', cat)).toMatchObject({
      kind: 'post_tool_use_failure',
      tool_name: 'bash',
      exit_code: 1,
      error: 'Exit code 1\ncat: does-not-exist.txt: No such file or directory',
    });
  });

  it('makes a tool part in state error (a tool that threw: no tool.execute.after) a failure with its error', () => {
    const failed = stream.find((c) => c.name === 'event.message.part.updated' && c.data.properties.part.state?.status === 'error')!.data;
    expect(adapt('message.part.updated', { event: failed })).toMatchObject({
      kind: 'post_tool_use_failure',
      tool_use_id: failed.properties.part.callID,
      tool_name: 'read',
      tool_input: { filePath: expect.stringContaining('does-not-exist.txt') },
      error: expect.stringMatching(/^File not found: .*does-not-exist\.txt$/),
    });
  });

  it('ends the turn with the text the plugin joined to session.idle, and the session at dispose', () => {
    expect(adapt('session.idle', { event: captured('event.session.idle'), last_assistant_message: 'All steps done.' })).toMatchObject({
      kind: 'stop',
      last_assistant_message: 'All steps done.',
    });
    expect(adapt('dispose', { sessionID: SESSION })).toMatchObject({ kind: 'session_end', reason: 'dispose' });
  });

  it('files a subagent’s calls under the parent session with the child session as the agent, and ignores the child’s own start and end', () => {
    const call = captured('tool.execute.after', 1);
    const child = { ...call, input: { ...call.input, sessionID: 'ses_child' } };
    expect(adapt('tool.execute.after', { ...child, parent_session_id: SESSION })).toMatchObject({ session_id: SESSION, agent_id: 'ses_child' });
    expect(
      openCodeAdapter.toEvent('session.idle', { event: { type: 'session.idle', properties: { sessionID: 'ses_child' } }, parent_session_id: SESSION }, {}),
    ).toMatchObject({
      ok: true,
      event: null,
    });
  });

  it('reads what it understands of a newer OpenCode’s payloads and ignores the rest', () => {
    const { input, output } = captured('tool.execute.after', 1);
    const newer = {
      input: { ...input, agent: 'build', extra: { nested: [1, 2] } },
      output: { ...output, attachments: [{ kind: 'image' }], metadata: 'not an object' },
    };
    expect(adapt('tool.execute.after', newer)).toMatchObject({ kind: 'post_tool_use', tool_name: 'read' });
    expect(openCodeAdapter.toEvent('session.compacted', { event: { type: 'session.compacted' } }, {})).toMatchObject({ ok: true, event: null });
    const running = { type: 'message.part.updated', properties: { part: { type: 'tool', tool: 'bash', sessionID: SESSION, state: { status: 'running' } } } };
    expect(openCodeAdapter.toEvent('message.part.updated', { event: running }, {})).toMatchObject({ ok: true, event: null });
  });

  it('refuses a payload that names no session, and a tool result without a tool', () => {
    expect(openCodeAdapter.toEvent('tool.execute.after', { input: {}, output: {} }, {})).toMatchObject({ ok: false });
    expect(openCodeAdapter.toEvent('tool.execute.after', { input: { sessionID: SESSION }, output: {} }, {})).toMatchObject({ ok: false });
    expect(openCodeAdapter.toEvent('chat.message', { input: 'garbage', output: 7 }, {})).toMatchObject({ ok: false });
  });
});
