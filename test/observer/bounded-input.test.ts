import { describe, expect, it } from 'vitest';
import { decideObserverOutput } from '../../src/observer/index.js';
import { observationXml } from '../support/replies.js';
import { countWork, growthOnDoubling } from '../support/work-counter.js';

/**
 * Hostile or huge replies cost work in proportion to their size (block-scan.ts: "a 1 MB reply or
 * tag soup costs O(n)"; markup.ts: "one forward pass: linear in the input whatever it holds").
 * Asserted on the characters the built-ins examine (countWork), never on a time: doubling the
 * input must about double the work (a quadratic scan would quadruple it).
 */
const LINEAR = 2.2;
const decide = (reply: string) => decideObserverOutput(reply);

describe('bounded input', () => {
  it('decides on a 1 MB reply, in work linear in its size', () => {
    const reply = (words: number) => observationXml({ type: 'feature', title: 'big', narrative: 'word '.repeat(words) });
    expect(reply(200_000).length).toBeGreaterThanOrEqual(1_000_000);
    expect(decide(reply(200_000)).outcome).toBe('parsed');
    expect(growthOnDoubling(reply, decide, 100_000).ratio).toBeLessThanOrEqual(LINEAR);
  });

  it('does not expand an entity bomb', () => {
    const lol = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`).join('');
    const reply = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol0 "lol">${lol}]><observation type="feature"><title>&lol9;</title></observation>`;
    const { value, work } = countWork(() => decide(reply));
    expect(value.observations[0]?.title.length ?? 0).toBeLessThan(100);
    // Expanded, &lol9; is 10⁹ characters; the declarations are never read as markup at all.
    expect(work).toBeLessThan(100 * reply.length);
  });

  it.each(['__proto__', 'constructor', 'prototype'])('never lets a <%s> tag reach an object key', (name) => {
    const d = decideObserverOutput(`<observation type="feature"><title>t</title><${name}><polluted>yes</polluted></${name}></observation>`);
    expect(d.observations[0]?.title).toBe('t');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads 10,000 nested foreign tags as text, in work linear in their number', () => {
    const reply = (n: number) => `<observation type="feature"><title>deep</title>${'<a>'.repeat(n)}x${'</a>'.repeat(n)}</observation>`;
    expect(decide(reply(10_000)).observations[0]?.title).toBe('deep');
    expect(growthOnDoubling(reply, decide, 10_000).ratio).toBeLessThanOrEqual(LINEAR);
  });

  it('reads field tags nested to the parser’s limit of 64, and drops deeper nesting (10,000 levels included) without throwing', () => {
    const nested = (n: number) => `<observation type="feature"><title>t</title>${'<facts>'.repeat(n)}x${'</facts>'.repeat(n)}</observation>`;
    expect(decide(nested(64))).toMatchObject({ outcome: 'parsed', observations: [{ title: 't' }] });
    expect(decide(nested(65))).toMatchObject({ outcome: 'dropped', class: 'malformed_xml' });
    const unclosed = (n: number) => `<observation type="feature"><title>t</title>${'<facts>'.repeat(n)}</observation>`;
    expect(() => decide(unclosed(10_000))).not.toThrow();
    expect(decide(unclosed(10_000))).toMatchObject({ outcome: 'dropped', class: 'malformed_xml' });
    expect(growthOnDoubling(unclosed, decide, 10_000).ratio).toBeLessThanOrEqual(LINEAR);
  });

  it('handles thousands of unterminated CDATA openers in linear work', () => {
    const reply = (n: number) => `<observation type="feature"><title>t</title><narrative>${'<![CDATA[ x '.repeat(n)}</narrative></observation>`;
    expect(decide(reply(20_000)).observations[0]?.title).toBe('t');
    expect(growthOnDoubling(reply, decide, 20_000).ratio).toBeLessThanOrEqual(LINEAR);
  });
});
