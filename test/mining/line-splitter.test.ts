import { describe, expect, it } from 'vitest';
import { createLineSplitter } from '../../src/mining/line-splitter.js';

function split(text: string | Buffer, chunk: number, max = 1024, start = 0) {
  const lines: Array<[string, number, number]> = [];
  const oversized: Array<[number, number]> = [];
  const s = createLineSplitter(start, max, {
    line: (b, a, z) => lines.push([b.toString('utf8'), a, z]),
    oversized: (a, z) => oversized.push([a, z]),
  });
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const scratch = Buffer.alloc(chunk);
  for (let i = 0; i < bytes.length; i += chunk) {
    const n = bytes.copy(scratch, 0, i, Math.min(bytes.length, i + chunk));
    s.push(scratch.subarray(0, n)); // the same buffer is reused, as the file reader does
    scratch.fill(0x21);
  }
  return { lines, oversized, completedTo: s.completedTo(), pending: s.pendingBytes() };
}

describe('line splitter', () => {
  it('hands out every line with its file offsets, whatever the chunk size', () => {
    const text = '{"a":1}\n{"b":"two"}\n\n{"c":3}\n';
    for (const chunk of [1, 2, 3, 7, 64]) {
      const out = split(text, chunk, 1024, 100);
      expect(out.lines).toEqual([
        ['{"a":1}', 100, 108],
        ['{"b":"two"}', 108, 120],
        ['', 120, 121],
        ['{"c":3}', 121, 129],
      ]);
      expect(out.completedTo).toBe(129);
      expect(out.pending).toBe(0);
    }
  });

  it('holds back an unterminated last line instead of handing out half of it', () => {
    const out = split('{"a":1}\n{"b":', 4);
    expect(out.lines.map((l) => l[0])).toEqual(['{"a":1}']);
    expect(out.completedTo).toBe(8);
    expect(out.pending).toBe(5);
  });

  it('keeps multi-byte characters cut by a chunk edge intact', () => {
    const out = split('{"t":"é✓😀"}\n', 3);
    expect(out.lines[0]![0]).toBe('{"t":"é✓😀"}');
  });

  it('skips a line over the cap without assembling it, and carries on after it', () => {
    const big = `{"x":"${'y'.repeat(5000)}"}`;
    const out = split(`{"a":1}\n${big}\n{"b":2}\n`, 100, 1000);
    expect(out.lines.map((l) => l[0])).toEqual(['{"a":1}', '{"b":2}']);
    expect(out.oversized).toEqual([[8, 8 + big.length + 1]]);
  });

  it('accepts a line exactly at the cap', () => {
    const line = `{"x":"${'y'.repeat(92)}"}`; // 100 bytes
    expect(split(`${line}\n`, 7, 100).lines[0]![0]).toBe(line);
    expect(split(`${line}\n`, 7, 99).oversized).toHaveLength(1);
  });
});
