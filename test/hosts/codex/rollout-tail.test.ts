import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readExitCode } from '../../../src/hosts/codex/rollout-tail.js';
import { isPlainId } from '../../../src/hosts/codex/rollout-lines.js';
import { linesContaining } from '../../../src/hosts/file-tail.js';
import { makeTempDir } from '../../support/temp-dir.js';

const line = (type: string, payload: Record<string, unknown>) => JSON.stringify({ timestamp: '2026-11-30T00:00:00Z', type, payload });
const completed = (id: string, exitCode: number) => line('event_msg', { type: 'item_completed', item: { id, type: 'CommandExecution', exit_code: exitCode } });
const output = (callId: string, text: string) => line('response_item', { type: 'function_call_output', call_id: callId, output: text });

describe('a shell call’s exit code from the rollout', () => {
  const temp = makeTempDir('mt-rollout-');
  afterEach(() => fs.rmSync(path.join(temp.dir, 'rollout.jsonl'), { force: true }));
  afterAll(() => temp.cleanup());
  const rollout = (lines: string[]) => {
    const file = path.join(temp.dir, 'rollout.jsonl');
    fs.writeFileSync(file, lines.join('\n'));
    return file;
  };

  it('finds the item’s code, else the output’s, among lines that also name the call in passing', () => {
    const file = rollout([
      line('session_meta', { instructions: `call_1 is named here too ${'x'.repeat(40_000)}` }),
      output('call_1', 'Process exited with code 2\n'),
      completed('call_2', 0),
      completed('call_1', 1),
      output('call_3', 'Process exited with code 7'),
    ]);
    expect(readExitCode(file, 'call_1')).toBe(1);
    expect(readExitCode(file, 'call_2')).toBe(0);
    expect(readExitCode(file, 'call_3')).toBe(7);
    expect(readExitCode(file, 'call_4')).toBeNull();
  });

  it('looks further back when the call is older than the first window', () => {
    const file = rollout([completed('call_old', 3), ...Array.from({ length: 40 }, (_, i) => output(`call_${i}`, 'y'.repeat(2_000)))]);
    expect(readExitCode(file, 'call_old')).toBe(3);
  });

  it('parses every line for an id a writer might escape', () => {
    const odd = 'call "é"';
    expect(isPlainId(odd)).toBe(false);
    expect(readExitCode(rollout([completed(odd, 4), completed('call_2', 0)]), odd)).toBe(4);
  });
});

describe('the lines of a tail that contain a needle', () => {
  const lines = (text: string, needle: string) => linesContaining(Buffer.from(text), Buffer.from(needle));

  it('gives each whole line once, the last one without a newline too, and multi-byte text intact', () => {
    expect(lines('a1 x\nb2\nc1 1 é\nd', '1')).toEqual(['a1 x', 'c1 1 é']);
    expect(lines('a\nb xy', 'xy')).toEqual(['b xy']);
    expect(lines('é xy\n', 'xy')).toEqual(['é xy']);
    expect(lines('nothing here', 'xy')).toEqual([]);
  });
});
