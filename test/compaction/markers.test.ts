import { describe, expect, it } from 'vitest';
import { containsMarker, fallbackReasons, stripMarkers } from '../../src/compaction/index.js';

const body = 'The worker retries the provider with backoff and keeps the queue row claimed until it confirms. '.repeat(8);

describe('fallback detection', () => {
  it('flags a [Truncated from N tokens] marker at the end', () => {
    expect(fallbackReasons({ content: `${body}\n[Truncated from 5120 tokens]` })).toEqual(['truncated_tail']);
    expect(fallbackReasons({ content: `${body}\n[Truncated from 5120 tokens]\n  ` })).toEqual(['truncated_tail']);
  });

  it('does not flag the same marker quoted in the middle of a real summary', () => {
    const quoted = `lossless-claw appends [Truncated from 5120 tokens] to deterministic fallbacks. ${body}`;
    expect(fallbackReasons({ content: quoted })).toEqual([]);
    expect(fallbackReasons({ content: `${body} A report quoted "${'[LCM fallback summary; truncated for context management]'}" here. ${body}` })).toEqual([]);
  });

  it('flags lossless-claw fallback notes only at the start', () => {
    expect(fallbackReasons({ content: `[LCM fallback summary; truncated for context management]\n${body}` })).toEqual(['fallback_prefix']);
    expect(fallbackReasons({ content: `  [LCM fallback summary; directive-shaped untrusted content omitted]\n${body}` })).toEqual(['fallback_prefix']);
  });

  it('uses the level and model labels where present', () => {
    expect(fallbackReasons({ content: body, level: 'fallback' })).toEqual(['level_fallback']);
    expect(fallbackReasons({ content: body, level: 'normal', model: 'claude-haiku-4-5' })).toEqual([]);
    expect(fallbackReasons({ content: `${body}\n[Truncated for context management]`, model: 'emergency-fallback' })).toEqual(['emergency_truncation']);
    expect(fallbackReasons({ content: body, model: 'emergency-fallback' })).toEqual(['emergency_model']);
    // The bare emergency marker under an ordinary model label is quoted text, not a fallback.
    expect(fallbackReasons({ content: `${body}\n[Truncated for context management]`, model: 'unknown' })).toEqual([]);
  });
});

describe('new summaries', () => {
  it('refuses any marker anywhere', () => {
    expect(containsMarker(`${body} [Truncated from 12 tokens] ${body}`)).toBe(true);
    expect(containsMarker(`x [Truncated for context management] y`)).toBe(true);
    expect(containsMarker(body)).toBe(false);
    expect(containsMarker('[Truncated from many tokens]')).toBe(false);
  });

  it('strips every marker from text fed back to a summarizer', () => {
    const stripped = stripMarkers(`[LCM fallback summary; truncated for context management]\n${body}\n[Truncated from 5120 tokens]`);
    expect(containsMarker(stripped)).toBe(false);
    expect(stripped).toBe(body.trim());
  });
});
