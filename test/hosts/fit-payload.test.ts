import { describe, expect, it } from 'vitest';
import { fitPayload } from '../../src/hosts/fit-payload.js';
import { EVENT_CUTS, headTail } from '../../src/observer/event-render.js';

describe('fitting a mined event to the hooks’ body limit', () => {
  it('leaves an event that fits untouched (same object)', () => {
    const payload = { tool_name: 'Read', tool_response: { content: 'x'.repeat(1000) } };
    expect(fitPayload(payload, 10_000)).toEqual({ value: payload, shortened: false });
  });

  it('shortens only the longest strings, keeping head and tail, until the event fits', () => {
    const head = 'H'.repeat(50_000);
    const tail = 'T'.repeat(50_000);
    const payload = {
      tool_name: 'Read',
      tool_input: { file_path: 'big.log' },
      tool_response: { stdout: `${head}${'m'.repeat(2_000_000)}${tail}`, stderr: 'warning' },
    };
    const { value, shortened } = fitPayload(payload, 200_000);
    expect(shortened).toBe(true);
    expect(JSON.stringify(value).length).toBeLessThanOrEqual(200_000);
    expect(value.tool_input).toEqual({ file_path: 'big.log' });
    expect(value.tool_response.stderr).toBe('warning');
    expect(value.tool_response.stdout.startsWith('H'.repeat(40_000))).toBe(true);
    expect(value.tool_response.stdout.endsWith('T'.repeat(40_000))).toBe(true);
    expect(value.tool_response.stdout).toMatch(/…\[elided \d+ characters\]…/);
    expect(payload.tool_response.stdout.length).toBe(2_100_000); // the input is not modified
  });

  it('changes nothing the observer reads of the field (its head and tail)', () => {
    const text = Array.from({ length: 200_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    const { value } = fitPayload({ s: text }, 100_000);
    expect(value.s.length).toBeLessThan(100_000);
    // The observer keeps the head and the tail of an output (docs/observer.md#what-each-event-contributes).
    const seen = headTail(text, EVENT_CUTS.output);
    const seenAfter = headTail(value.s, EVENT_CUTS.output);
    expect(seenAfter.slice(0, 1_000)).toBe(seen.slice(0, 1_000));
    expect(seenAfter.slice(-800)).toBe(seen.slice(-800));
  });

  it('never splits a surrogate pair', () => {
    const { value, shortened } = fitPayload({ s: '😀'.repeat(100_000) }, 80_000);
    expect(shortened).toBe(true);
    expect(JSON.stringify(value).length).toBeLessThanOrEqual(80_000);
    expect(value.s).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });
});

describe('fitting an event to the stored size', () => {
  it('counts JSON escapes: a stored row of newline-heavy output stays within the bound', async () => {
    const { fitEvent } = await import('../../src/hosts/fit-event.js');
    const output = Array.from({ length: 300_000 }, (_, i) => String(i)).join('\n');
    const event = {
      kind: 'post_tool_use' as const,
      session_id: 's',
      tool_name: 'Bash',
      tool_input: { command: 'seq' },
      tool_response: { stdout: output, again: output },
    };
    const { event: fitted, shortened } = fitEvent(event, 1024 * 1024);
    expect(shortened).toBe(true);
    expect(JSON.stringify(fitted).length).toBeLessThanOrEqual(1024 * 1024);
    expect((fitted.tool_response as { stdout: string }).stdout.startsWith('0\n1\n2\n')).toBe(true);
  });

  it('cuts a prompt over the contract’s text limit, head and tail kept', async () => {
    const { fitEvent } = await import('../../src/hosts/fit-event.js');
    const prompt = `START${'p'.repeat(300_000)}END`;
    const { event, shortened } = fitEvent({ kind: 'user_prompt_submit' as const, session_id: 's', prompt });
    expect(shortened).toBe(true);
    expect(event.prompt!.length).toBeLessThanOrEqual(200_000);
    expect(event.prompt!.startsWith('START')).toBe(true);
    expect(event.prompt!.endsWith('END')).toBe(true);
  });
});
