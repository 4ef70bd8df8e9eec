import { describe, expect, it } from 'vitest';
import { decideObserverOutput } from '../../src/observer/index.js';
import { observationXml } from '../support/replies.js';

function timed<T>(fn: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = fn();
  return { value, ms: performance.now() - started };
}

describe('bounded input', () => {
  it('decides on a 1 MB reply without throwing', () => {
    const reply = observationXml({ type: 'feature', title: 'big', narrative: 'word '.repeat(200_000) });
    const { value, ms } = timed(() => decideObserverOutput(reply));
    expect(value.outcome).toBe('parsed');
    expect(ms).toBeLessThan(2_000);
  });

  it('does not expand an entity bomb', () => {
    const lol = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`).join('');
    const reply = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol0 "lol">${lol}]><observation type="feature"><title>&lol9;</title></observation>`;
    const { value, ms } = timed(() => decideObserverOutput(reply));
    expect(value.observations[0]?.title.length ?? 0).toBeLessThan(100);
    expect(ms).toBeLessThan(2_000);
  });

  it.each(['__proto__', 'constructor', 'prototype'])('never lets a <%s> tag reach an object key', (name) => {
    const d = decideObserverOutput(`<observation type="feature"><title>t</title><${name}><polluted>yes</polluted></${name}></observation>`);
    expect(d.observations[0]?.title).toBe('t');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('handles 10,000 nested tags quickly', () => {
    const reply = `<observation type="feature"><title>deep</title>${'<a>'.repeat(10_000)}x${'</a>'.repeat(10_000)}</observation>`;
    const { value, ms } = timed(() => decideObserverOutput(reply));
    expect(value.observations[0]?.title).toBe('deep');
    expect(ms).toBeLessThan(2_000);
  });

  it('handles 10,000 nested field tags without throwing', () => {
    const reply = `<observation type="feature"><title>t</title>${'<facts>'.repeat(10_000)}</observation>`;
    expect(() => decideObserverOutput(reply)).not.toThrow();
  });

  it('handles thousands of unterminated CDATA openers in linear time', () => {
    const reply = `<observation type="feature"><title>t</title><narrative>${'<![CDATA[ x '.repeat(20_000)}</narrative></observation>`;
    const { ms } = timed(() => decideObserverOutput(reply));
    expect(ms).toBeLessThan(3_000);
  });
});
