import { describe, expect, it } from 'vitest';
import { acceptSummary, cannotSummarize, summaryShapeProblem } from '../../src/compaction/index.js';
import { compactionSystemPrompt } from '../../src/compaction/prompts.js';
import { estimateTokens } from '../../src/context/index.js';
import { createReplayProvider } from '../../src/providers/index.js';
import { observationXml, summaryXml } from '../support/replies.js';

const SOURCE = Array.from(
  { length: 12 },
  (_, i) =>
    `[discovery] Finding ${i} about the retry path — why the worker retried\nThe retry path ${i} re-reads the queue row and backs off before calling the provider again.`,
).join('\n\n');
const sources = { text: SOURCE, tokens: estimateTokens(SOURCE) };
const accept = (text: string) => acceptSummary(text, sources, estimateTokens);

describe('the summary contract', () => {
  it('accepts a plain summary, trimmed, with its size', () => {
    const text = '  The worker retries by re-reading the queue row and backing off; findings 0–11 agree.\n';
    expect(accept(text)).toEqual({ accepted: true, text: text.trim(), tokens: estimateTokens(text.trim()) });
  });

  it.each([
    ['empty', '   \n'],
    ['marker', 'The worker retries.\n[Truncated from 400 tokens]'],
    ['marker', '[LCM fallback summary; truncated for context management]\nThe worker retries.'],
    ['observer_markup', observationXml({ type: 'discovery', title: 'Retry path' })],
    ['observer_markup', 'The worker retries. <OBSERVATION type="x">'],
    ['observer_markup', '<narrative>The worker retries.</narrative>'],
    ['observer_markup', summaryXml({ request: 'retry', completed: 'done' })],
    ['prompt_echo', 'Summarize these observations (about 300 tokens).\n\n<input>\nThe worker retries.\n</input>'],
    ['prompt_echo', 'Output only the summary: no preamble, no headings about yourself, no closing remarks. The worker retries.'],
    ['prompt_echo', SOURCE.slice(0, 200)],
    ['did_not_shrink', 'The worker retried the call and logged it. '.repeat(200)],
  ])('rejects %s: %j', (reason, text) => {
    expect(accept(text)).toMatchObject({ accepted: false, reason });
  });

  it('accepts a summary that mentions HTML’s <summary> element or quotes a marker mid-text', () => {
    expect(accept('Moved the label into a <summary> inside <details> so the retry panel folds.').accepted).toBe(true);
    expect(accept('lossless-claw marks cut summaries with [Truncated from N tokens]; the worker retries.').accepted).toBe(true);
  });

  it('never lets a sentence of its own instructions through', () => {
    for (const level of ['normal', 'aggressive'] as const) {
      for (const line of compactionSystemPrompt(level)
        .split('\n')
        .filter((l) => l.trim().length >= 24)) {
        expect(summaryShapeProblem(`The worker retries. ${line.trim()}`), line).toBe('prompt_echo');
      }
    }
  });
});

describe('which providers can summarize', () => {
  it('refuses none, and replay whose recordings are all observer output', () => {
    expect(cannotSummarize({ name: 'none' })).toMatch(/^no provider is configured/);
    const observer = createReplayProvider({
      lines: [JSON.stringify({ text: observationXml({ type: 'bugfix', title: 'a' }) }), JSON.stringify({ error: { status: 500 } })],
    });
    expect(cannotSummarize(observer)).toMatch(/^the replay provider cannot summarize: none of the 1 replies/);
  });

  it('allows replay with a summary among its recordings, and every live provider', () => {
    const mixed = createReplayProvider({
      lines: [JSON.stringify({ text: observationXml({ type: 'bugfix', title: 'a' }) }), JSON.stringify({ text: 'The worker retries.' })],
    });
    expect(cannotSummarize(mixed)).toBeNull();
    expect(cannotSummarize({ name: 'anthropic' })).toBeNull();
    expect(cannotSummarize({ name: 'openai' })).toBeNull();
  });
});
