import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { copilotAdapter, copilotContextJson } from '../../src/hosts/copilot/adapter.js';
import { copilotStopId, copilotToolUseId, stopTimestampOf } from '../../src/hosts/copilot/call-ids.js';
import { readEventsLog } from '../../src/hosts/copilot/events-log.js';
import { readStopText } from '../../src/hosts/copilot/events-tail.js';
import { adapterDepsFor, parseEvent } from '../../src/hosts/index.js';
import { hostPayload, hostTranscript } from '../support/host-fixtures.js';
import { makeTempDir } from '../support/temp-dir.js';

const SESSION = '7a162ee4-0020-4a52-ae4d-1b371b7653e2';
const FINAL = 'All steps done: out.txt now says hello world; does-not-exist.txt is missing.';

const adapt = (event: string, payload: Record<string, unknown>) => {
  const result = copilotAdapter.toEvent(event, payload, {});
  if (!result.ok || result.event === null) throw new Error(`not an event: ${JSON.stringify(result)}`);
  const checked = parseEvent(result.event.kind, result.event);
  if (!checked.ok) throw new Error(`fails the contract: ${JSON.stringify(checked.issues)}`);
  return result.event as Record<string, unknown>;
};
const captured = (name: string) => hostPayload('copilot', 'captured', name);
const eventsLines = () => fs.readFileSync(hostTranscript('copilot', 'events.jsonl'), 'utf8').split('\n');

describe('the Copilot CLI adapter on captured payloads', () => {
  it('maps sessionStart, userPromptSubmitted and sessionEnd with the session, cwd and platform', () => {
    expect(adapt('sessionStart', captured('01-sessionStart'))).toMatchObject({
      kind: 'session_start',
      session_id: SESSION,
      source: 'new',
      platform: 'copilot',
    });
    expect(adapt('userPromptSubmitted', captured('03-userPromptSubmitted'))).toMatchObject({
      kind: 'user_prompt_submit',
      prompt: 'Create out.txt, read it, edit it, then cat a missing file.',
    });
    expect(adapt('sessionEnd', captured('33-sessionEnd'))).toMatchObject({ kind: 'session_end', reason: 'complete' });
  });

  it('gives a tool call its arguments, its result and a provisional id made of what the hook saw', () => {
    const payload = captured('19-postToolUse');
    const event = adapt('postToolUse', payload);
    expect(event).toMatchObject({ kind: 'post_tool_use', tool_name: 'edit', tool_input: { old_str: 'hello', new_str: 'hello world' } });
    expect(event.tool_response).toMatchObject({ resultType: 'success' });
    expect(event.tool_use_id).toBe(copilotToolUseId({ sessionId: SESSION, timestamp: payload.timestamp, toolName: 'edit', toolArgs: payload.toolArgs }));
    // A replay of the same hook (from the spool) is the same id; another call with the same arguments is not.
    expect(adapt('postToolUse', { ...payload }).tool_use_id).toBe(event.tool_use_id);
    expect(adapt('postToolUse', { ...payload, timestamp: (payload.timestamp as number) + 1 }).tool_use_id).not.toBe(event.tool_use_id);
  });

  it('makes a shell that exits non-zero a failure with its exit code (Copilot calls it a success)', () => {
    expect(adapt('postToolUse', captured('09-postToolUse'))).toMatchObject({ kind: 'post_tool_use', tool_name: 'bash' });
    expect(adapt('postToolUse', captured('25-postToolUse'))).toMatchObject({
      kind: 'post_tool_use_failure',
      tool_name: 'bash',
      exit_code: 1,
      error: 'Exit code 1\ncat: does-not-exist.txt: No such file or directory',
    });
  });

  it('keeps postToolUseFailure as a failure with its error', () => {
    expect(adapt('postToolUseFailure', captured('29-postToolUseFailure'))).toMatchObject({
      kind: 'post_tool_use_failure',
      tool_name: 'view',
      error: 'Path does not exist',
    });
  });

  it('names the turn of an agentStop by its timestamp and keeps its transcript path; the final text comes later', () => {
    const event = adapt('agentStop', captured('31-agentStop'));
    expect(event).toMatchObject({ kind: 'stop', prompt_id: 'copilot-stop-1795905753770' });
    expect(event.transcript_path).toMatch(/session-state\/7a162ee4-0020-4a52-ae4d-1b371b7653e2\/events\.jsonl$/);
    expect(event.last_assistant_message).toBeUndefined();
    expect(stopTimestampOf(copilotStopId(1795905753770))).toBe(1795905753770);
    expect(stopTimestampOf('turn-1')).toBeNull();
  });

  it('reads the snake_case dialect of the PascalCase events too', () => {
    expect(adapt('sessionStart', captured('02-SessionStart'))).toMatchObject({ kind: 'session_start', session_id: SESSION });
    expect(adapt('postToolUse', captured('10-PostToolUse'))).toMatchObject({
      kind: 'post_tool_use',
      tool_name: 'Bash',
      tool_input: { command: 'echo hello > out.txt && echo hi' },
    });
  });

  it('ignores events it does not handle, stores what it understands of a newer payload, and refuses one without a session', () => {
    expect(copilotAdapter.toEvent('preToolUse', captured('05-preToolUse'), {})).toMatchObject({ ok: true, event: null });
    expect(copilotAdapter.toEvent('subagentStart', { sessionId: SESSION }, {})).toMatchObject({ ok: true, event: null });
    const newer = {
      ...captured('09-postToolUse'),
      toolResult: { resultType: 'success', textResultForLlm: 'hi\n', telemetry: { x: 1 } },
      model: 'gpt-9',
      extra: [1],
    };
    expect(adapt('postToolUse', newer)).toMatchObject({ kind: 'post_tool_use', tool_name: 'bash' });
    expect(adapt('postToolUse', { ...newer, toolResult: 'plain text' })).toMatchObject({ kind: 'post_tool_use', tool_response: 'plain text' });
    expect(adapt('postToolUse', { ...newer, toolResult: { resultType: 'denied', textResultForLlm: 'the user said no' } })).toMatchObject({
      kind: 'post_tool_use_failure',
      error: 'denied\nthe user said no',
    });
    expect(copilotAdapter.toEvent('postToolUse', { toolName: 'bash' }, {})).toMatchObject({ ok: false });
    expect(copilotAdapter.toEvent('postToolUse', { sessionId: SESSION }, {})).toMatchObject({ ok: false });
  });

  it('prints session-start context as the top-level additionalContext Copilot reads', () => {
    expect(JSON.parse(copilotContextJson('# memtrace context'))).toEqual({ additionalContext: '# memtrace context' });
  });
});

describe('Copilot CLI’s events.jsonl', () => {
  it('lists every finished call with its id, result, exit code, and the provisional id its hook gave it', () => {
    const log = readEventsLog(eventsLines());
    expect(log).toMatchObject({ sessionId: SESSION, shutdown: true, lastAssistantText: FINAL });
    expect(log.prompts).toEqual(['Create out.txt, read it, edit it, then cat a missing file.']);
    expect(log.calls.map((c) => [c.toolName, c.complete?.success, c.complete?.exitCode ?? null])).toEqual([
      ['bash', true, 0],
      ['view', true, null],
      ['edit', true, null],
      ['bash', true, 1],
      ['view', false, null],
    ]);
    expect(log.calls[4]!.complete?.error).toBe('Path does not exist');
    const hookIds = ['09-postToolUse', '13-postToolUse', '19-postToolUse', '25-postToolUse', '29-postToolUseFailure'].map(
      (name) => adapt(name.slice(3), captured(name)).tool_use_id,
    );
    expect(log.calls.map((c) => c.hookId)).toEqual(hookIds);
    expect(log.calls[0]!.toolCallId).toBe('call_e52fcb633069f990');
  });

  it('knows each turn’s final text by its agentStop’s timestamp', () => {
    const log = readEventsLog(eventsLines());
    expect(log.stopTexts.get(1795905753770)).toBe(FINAL);
    const temp = makeTempDir('memtrace-copilot-events-');
    try {
      const file = path.join(temp.dir, 'events.jsonl');
      const lines = eventsLines();
      const stopAt = lines.findIndex((l) => l.includes('"hookType":"agentStop"'));
      // Before Copilot flushed the turn there is nothing to read; then its text.
      fs.writeFileSync(file, lines.slice(0, stopAt).join('\n'));
      expect(readStopText(file, 1795905753770)).toBeNull();
      fs.writeFileSync(file, lines.join('\n'));
      expect(readStopText(file, 1795905753770)).toEqual({ text: FINAL });
      expect(adapterDepsFor('copilot').turnFinalText?.(file, 'copilot-stop-1795905753770')).toEqual({ text: FINAL });
      // A tail that starts mid-turn cannot tell the turn's text: it is not guessed.
      expect(readEventsLog(lines.slice(stopAt - 3)).stopTexts.size).toBe(0);
    } finally {
      temp.cleanup();
    }
  });

  it('skips what does not parse and a turn without text ends with none', () => {
    const lines = [
      '{"type":"session.start","data":{"sessionId":"s1","context":{"cwd":"/p"}}}',
      'not json',
      '{"type":"user.message","data":{"content":"first"}}',
      '{"type":"assistant.message","data":{"content":"answer one","toolRequests":[]}}',
      '{"type":"hook.start","data":{"hookType":"agentStop","input":{"timestamp":1}}}',
      '{"type":"user.message","data":{"content":"second"}}',
      '{"type":"future.thing","data":{}}',
      '{"type":"hook.start","data":{"hookType":"agentStop","input":{"timestamp":2}}}',
      '{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"bash","arguments":{"command":"sleep 9"}}}',
      '{"type":"tool.exec',
    ];
    const log = readEventsLog(lines);
    expect(log.stopTexts).toEqual(
      new Map([
        [1, 'answer one'],
        [2, null],
      ]),
    );
    expect(log.calls).toMatchObject([{ toolCallId: 'c1', complete: null, hookId: null }]);
    expect(log.shutdown).toBe(false);
  });
});
