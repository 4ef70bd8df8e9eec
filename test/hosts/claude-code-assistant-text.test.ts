import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lastAssistantText } from '../../src/hosts/claude-code/assistant-text.js';
import { readLastAssistantText } from '../../src/hosts/claude-code/transcript-tail.js';
import { makeTempDir } from '../support/temp-dir.js';

const line = (o: unknown) => JSON.stringify(o);
const assistant = (id: string, content: unknown[], extra: Record<string, unknown> = {}) =>
  line({ type: 'assistant', message: { id, role: 'assistant', content }, ...extra });
const user = (text: string) => line({ type: 'user', message: { role: 'user', content: text } });

describe('the last assistant message of a transcript', () => {
  const temp = makeTempDir();
  afterAll(() => temp.cleanup());

  it('joins every line of one response by message.id', () => {
    const tail = [
      user('fix it'),
      assistant('msg_1', [{ type: 'thinking', thinking: 'hmm' }]),
      assistant('msg_1', [{ type: 'text', text: 'First part.' }]),
      assistant('msg_1', [{ type: 'text', text: 'Second part.' }]),
      assistant('msg_1', [{ type: 'tool_use', id: 't', name: 'Bash', input: {} }]),
    ].join('\n');
    expect(lastAssistantText(tail)).toEqual({ text: 'First part.\nSecond part.', complete: true });
  });

  it('skips sidechain (subagent) lines and the cut first line of the tail', () => {
    const tail = [
      '{"type":"assistant","message":{"id":"cut',
      user('go'),
      assistant('msg_2', [{ type: 'text', text: 'Main answer.' }]),
      assistant('msg_side', [{ type: 'text', text: 'subagent chatter' }], { isSidechain: true }),
    ].join('\n');
    expect(lastAssistantText(tail)?.text).toBe('Main answer.');
  });

  it('reads a larger tail when a long reply does not fit the first window', () => {
    const long = 'x'.repeat(600 * 1024);
    const file = path.join(temp.dir, 't.jsonl');
    fs.writeFileSync(
      file,
      `${[user('write a lot'), assistant('msg_a', [{ type: 'text', text: `${long}START` }]), assistant('msg_a', [{ type: 'text', text: 'END' }])].join('\n')}\n`,
    );
    const text = readLastAssistantText(file);
    expect(text?.startsWith('x')).toBe(true);
    expect(text?.endsWith('START\nEND')).toBe(true);
    expect(text?.length).toBe(long.length + 'START\nEND'.length);
  });

  it('gives null for a missing or empty transcript', () => {
    expect(readLastAssistantText(path.join(temp.dir, 'none.jsonl'))).toBeNull();
    expect(lastAssistantText('')).toBeNull();
  });
});
