import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { geminiCliAdapter } from '../../src/hosts/gemini-cli/adapter.js';
import { lastModelRecord, readChatLines } from '../../src/hosts/gemini-cli/chat-records.js';
import { readLastModelText, readLastModelTurn } from '../../src/hosts/gemini-cli/chat-tail.js';
import { geminiToolUseId } from '../../src/hosts/gemini-cli/tool-use-id.js';
import { adapterDepsFor, parseEvent, type HookEvent } from '../../src/hosts/index.js';
import { hostPayload, hostPayloads, hostTranscript } from '../support/host-fixtures.js';

const noTranscript = {};
const adapt = (event: string, payload: Record<string, unknown>, deps = noTranscript) => {
  const result = geminiCliAdapter.toEvent(event, payload, deps);
  if (!result.ok || result.event === null) throw new Error(`not an event: ${JSON.stringify(result)}`);
  const checked = parseEvent(result.event.kind, result.event);
  if (!checked.ok) throw new Error(`fails the contract: ${JSON.stringify(checked.issues)}`);
  return result.event;
};

describe('the Gemini CLI adapter on captured payloads', () => {
  it('maps SessionStart, BeforeAgent, AfterAgent and SessionEnd to memtrace events with the session, cwd, transcript and platform', () => {
    const start = adapt('SessionStart', hostPayload('gemini-cli', 'captured', '01-SessionStart'));
    expect(start).toMatchObject({
      kind: 'session_start',
      session_id: '09886496-564b-4f32-8073-96b5f2a4c1a2',
      cwd: '/home/dev/run/proj',
      platform: 'gemini-cli',
      source: 'startup',
    });
    expect(start.transcript_path).toMatch(/chats\/session-2026-11-25T12-39-09886496\.jsonl$/);
    expect(adapt('BeforeAgent', hostPayload('gemini-cli', 'captured', '02-BeforeAgent'))).toMatchObject({
      kind: 'user_prompt_submit',
      prompt: 'Create out.txt, read it, edit it, then cat a missing file.',
    });
    expect(adapt('AfterAgent', hostPayload('gemini-cli', 'captured', '37-AfterAgent'))).toMatchObject({
      kind: 'stop',
      last_assistant_message: 'All steps done: out.txt now says hello world; does-not-exist.txt is missing.',
    });
    expect(adapt('SessionEnd', hostPayload('gemini-cli', 'captured', '38-SessionEnd'))).toMatchObject({ kind: 'session_end', reason: 'exit' });
  });

  it('keeps the user’s prompt without the session-start context Gemini prepends to it', () => {
    const payload = {
      ...hostPayload('gemini-cli', 'captured', '02-BeforeAgent'),
      prompt: '<hook_context># memtrace context\n- a</hook_context>\n\nCreate out.txt, read it.',
    };
    expect(adapt('BeforeAgent', payload)).toMatchObject({ prompt: 'Create out.txt, read it.' });
  });

  it('keeps a tool call with its input and whole response, and gives it an id', () => {
    const event = adapt('AfterTool', hostPayload('gemini-cli', 'captured', '20-AfterTool'));
    expect(event).toMatchObject({ kind: 'post_tool_use', tool_name: 'replace', tool_input: { old_string: 'hello', new_string: 'hello world' } });
    expect((event as { tool_response: { returnDisplay: { newContent: string } } }).tool_response.returnDisplay.newContent).toBe('hello world\n');
    expect((event as { tool_use_id: string }).tool_use_id).toMatch(/^gemini-[0-9a-f]{16}$/);
  });

  it('makes a shell command that exits non-zero a failure with its exit code', () => {
    const event = adapt('AfterTool', hostPayload('gemini-cli', 'captured', '26-AfterTool'));
    expect(event).toMatchObject({
      kind: 'post_tool_use_failure',
      tool_name: 'run_shell_command',
      exit_code: 1,
      error: 'Exit code 1\ncat: does-not-exist.txt: No such file or directory',
    });
    expect(adapt('AfterTool', hostPayload('gemini-cli', 'captured', '08-AfterTool')).kind).toBe('post_tool_use');
  });

  it('makes a tool error a failure with its message and type', () => {
    expect(adapt('AfterTool', hostPayload('gemini-cli', 'captured', '32-AfterTool'))).toMatchObject({
      kind: 'post_tool_use_failure',
      tool_name: 'read_file',
      error: 'File not found: /home/dev/run/proj/does-not-exist.txt (file_not_found)',
    });
  });

  it('accepts memtrace’s own event names too, and ignores Gemini events it does not handle', () => {
    expect(adapt('post-tool-use', hostPayload('gemini-cli', 'captured', '14-AfterTool')).kind).toBe('post_tool_use');
    expect(geminiCliAdapter.toEvent('BeforeTool', hostPayload('gemini-cli', 'captured', '07-BeforeTool'), noTranscript)).toMatchObject({
      ok: true,
      event: null,
    });
    expect(geminiCliAdapter.kindOf('AfterTool')).toBe('post_tool_use');
    expect(geminiCliAdapter.kindOf('BeforeModel')).toBeNull();
  });

  it('refuses a payload without a session id', () => {
    expect(geminiCliAdapter.toEvent('AfterTool', { tool_name: 'x' }, noTranscript)).toMatchObject({ ok: false, reason: 'hook input has no session_id' });
  });

  it('prints session-start context as the hookSpecificOutput JSON Gemini reads', () => {
    expect(JSON.parse(geminiCliAdapter.contextOutput('# memtrace context\n- a'))).toEqual({
      hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: '# memtrace context\n- a' },
    });
  });
});

describe('Gemini tool ids, from the chat file the hook can read', () => {
  const session = hostPayloads('gemini-cli', 'session');
  const failing = session[5]!;
  const chatThen = hostTranscript('gemini-cli', 'chat-at-06-AfterTool.jsonl');

  it('reads the model turn that made the running call (its tool calls not yet written)', () => {
    const turn = readLastModelTurn(chatThen);
    expect(turn).toMatchObject({ id: '9136a771-bfb8-440a-b0d8-2789af5da94e', timestamp: '2026-11-25T14:14:55.677Z', toolCalls: [] });
  });

  it('derives the id from that turn, so mining the finished chat file gives the same one', () => {
    expect(failing.event).toBe('AfterTool');
    const event = adapt('AfterTool', { ...failing.payload, transcript_path: chatThen }, adapterDepsFor('gemini-cli')) as HookEvent & { tool_use_id: string };
    const finished = readChatLines(fs.readFileSync(hostTranscript('gemini-cli', 'chat.jsonl'), 'utf8').split('\n'));
    const record = finished.records.find((r) => r.id === '9136a771-bfb8-440a-b0d8-2789af5da94e')!;
    const call = record.toolCalls[0]!;
    expect(call.name).toBe('run_shell_command');
    expect(
      geminiToolUseId({
        sessionId: failing.payload.session_id as string,
        turnId: record.id,
        time: record.timestamp,
        toolName: call.name,
        toolInput: call.args,
      }),
    ).toBe(event.tool_use_id);
  });

  it('takes the transcript’s own call id when the turn already lists the call', () => {
    const finished = hostTranscript('gemini-cli', 'chat.jsonl');
    const last = lastModelRecord(readChatLines(fs.readFileSync(finished, 'utf8').split('\n')))!;
    expect(last.toolCalls).toEqual([]); // the final answer
    const withCalls = {
      id: 't1',
      timestamp: 'x',
      toolCalls: [
        {
          id: 'run_shell_command__run_shell_command_1_0',
          name: 'run_shell_command',
          args: { description: 'read a missing file', command: 'cat does-not-exist.txt' },
        },
      ],
    };
    const event = adapt('AfterTool', failing.payload, { lastModelTurn: () => withCalls }) as { tool_use_id: string };
    expect(event.tool_use_id).toBe('run_shell_command__run_shell_command_1_0');
  });

  it('gives distinct ids to the calls of a session and the same id to the same call', () => {
    const deps = adapterDepsFor('gemini-cli');
    const ids = session
      .filter((s) => s.event === 'AfterTool')
      .map((s) => (adapt('AfterTool', { ...s.payload, transcript_path: '/nonexistent/chat.jsonl' }, deps) as { tool_use_id: string }).tool_use_id);
    expect(new Set(ids).size).toBe(5);
    expect((adapt('AfterTool', { ...failing.payload, transcript_path: '/nonexistent/chat.jsonl' }, deps) as { tool_use_id: string }).tool_use_id).toBe(ids[3]);
  });

  it('reads the final answer from the chat file when AfterAgent has none', () => {
    expect(readLastModelText(hostTranscript('gemini-cli', 'chat.jsonl'))).toBe('All steps done: out.txt now says hello world; does-not-exist.txt is missing.');
    const stop = adapt(
      'AfterAgent',
      { ...session[7]!.payload, prompt_response: '', transcript_path: hostTranscript('gemini-cli', 'chat.jsonl') },
      adapterDepsFor('gemini-cli'),
    );
    expect(stop).toMatchObject({ kind: 'stop', last_assistant_message: 'All steps done: out.txt now says hello world; does-not-exist.txt is missing.' });
  });
});
