import { describe, expect, it } from 'vitest';
import { shortenToFit } from '../../src/hook/shorten-payload.js';

const LIMIT = 1024 * 1024 - 8 * 1024;

describe('shortenToFit', () => {
  it('leaves a payload that fits untouched', () => {
    const body = { session_id: 's', tool_response: { stdout: 'ok' } };
    expect(shortenToFit(body, LIMIT)).toEqual({ body, shortened: false, bytes: JSON.stringify(body).length });
  });

  it('cuts a 3 MB tool_response to fit, keeping its head, its tail and a marker saying how much went', () => {
    const stdout = `HEAD-${'a'.repeat(1_500_000)}${'b'.repeat(1_500_000)}-TAIL`;
    const result = shortenToFit({ session_id: 's', tool_name: 'Bash', tool_input: { command: 'cat big.log' }, tool_response: { stdout, stderr: '' } }, LIMIT);
    expect(result.shortened).toBe(true);
    expect(result.bytes).toBeLessThanOrEqual(LIMIT);
    const kept = (result.body.tool_response as { stdout: string }).stdout;
    expect(kept.startsWith('HEAD-aaa')).toBe(true);
    expect(kept.endsWith('bbb-TAIL')).toBe(true);
    expect(kept).toMatch(/\[… memtrace cut \d+ characters to fit the hook body limit …\]/);
    expect(result.body.tool_input).toEqual({ command: 'cat big.log' });
  });

  it('shortens several large fields, the largest first, and multi-byte text by bytes', () => {
    const result = shortenToFit({ session_id: 's', tool_input: { content: '€'.repeat(400_000) }, tool_response: { originalFile: '€'.repeat(400_000) } }, LIMIT);
    expect(result.bytes).toBeLessThanOrEqual(LIMIT);
    expect(Buffer.byteLength(JSON.stringify(result.body))).toBe(result.bytes);
  });

  it('never splits a surrogate pair', () => {
    const result = shortenToFit({ tool_response: '😀'.repeat(600_000) }, LIMIT);
    expect(result.bytes).toBeLessThanOrEqual(LIMIT);
    expect(JSON.stringify(result.body)).not.toMatch(/\\ud83d(?!\\ude00)/i);
    expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(result.body.tool_response as string)).toBe(false);
  });

  it('falls back to keeping the identity when nothing is large enough to cut', () => {
    const result = shortenToFit({ session_id: 's', tool_name: 'X', tool_response: Array.from({ length: 200_000 }, (_, i) => `v${i}`) }, LIMIT);
    expect(result.shortened).toBe(true);
    expect(result.body).toMatchObject({ session_id: 's', tool_name: 'X' });
    expect(result.bytes).toBeLessThanOrEqual(LIMIT);
  });
});
