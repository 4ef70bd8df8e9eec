import { describe, expect, it } from 'vitest';
import { exitCodeIn, rolloutLines, rolloutLinesNaming } from '../../../src/hosts/codex/rollout-lines.js';

const line = (type: string, payload: Record<string, unknown>) => JSON.stringify({ timestamp: '2026-11-30T00:00:00Z', type, payload });
const completed = (id: string, exitCode: number) => line('event_msg', { type: 'item_completed', item: { id, type: 'CommandExecution', exit_code: exitCode } });
const output = (callId: string, text: string) => line('response_item', { type: 'function_call_output', call_id: callId, output: text });

describe('a rollout tail read for one call', () => {
  const instructions = line('session_meta', { instructions: `call_1 is named here too ${'x'.repeat(40_000)}` });
  const tail = [
    '"cut":"mid-line call_1"}',
    instructions,
    output('call_1', 'Process exited with code 2\n'),
    completed('call_2', 0),
    completed('call_1', 1),
    output('call_3', 'Process exited with code 7'),
  ].join('\n');

  it('parses only the lines that name the call, and finds the same exit code as the whole tail', () => {
    const named = rolloutLinesNaming(tail, 'call_1');
    expect(named.map((l) => l.type)).toEqual(['session_meta', 'response_item', 'event_msg']);
    for (const id of ['call_1', 'call_2', 'call_3', 'call_4']) expect(exitCodeIn(rolloutLinesNaming(tail, id), id)).toBe(exitCodeIn(rolloutLines(tail), id));
    expect(exitCodeIn(rolloutLinesNaming(tail, 'call_3'), 'call_3')).toBe(7);
  });

  it('reads the last line when the tail has no final newline, and skips a line cut at the tail’s start', () => {
    expect(rolloutLinesNaming(tail, 'call_3')).toHaveLength(1);
    expect(rolloutLinesNaming('"cut":"call_9"}\n', 'call_9')).toEqual([]);
  });

  it('parses every line for an id a writer might escape', () => {
    const odd = 'call "é"';
    const text = [completed(odd, 4), completed('call_2', 0)].join('\n');
    expect(rolloutLinesNaming(text, odd)).toHaveLength(2);
    expect(exitCodeIn(rolloutLinesNaming(text, odd), odd)).toBe(4);
  });
});
