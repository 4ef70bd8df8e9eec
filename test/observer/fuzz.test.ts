import { describe, expect, it } from 'vitest';
import { decideObserverOutput, OUTPUT_CLASSES } from '../../src/observer/index.js';
import type { ParseDecision } from '../../src/observer/index.js';
import { VALID_REPLY, seededRandom, summaryXml } from '../support/replies.js';
import { countWork } from '../support/work-counter.js';

const PIECES = [
  '<observation',
  '<observation type="bugfix">',
  '</observation>',
  '<summary>',
  '</summary>',
  '<skip_summary/>',
  '<title>',
  '</title>',
  '<facts>',
  '<fact>',
  '</fact>',
  '<![CDATA[',
  ']]>',
  '&amp;',
  '&',
  '<',
  '>',
  '"',
  "'",
  '=',
  ' ',
  '\n',
  'text',
  '```',
  '<!DOCTYPE x [<!ENTITY a "b">]>',
  '&a;',
  '<__proto__>',
  '日本語',
  '🙂',
];

/**
 * Any reply gets a decision in work proportional to its length, counted rather than timed: at most
 * this many characters examined or copied per character of reply (plus a constant). The worst
 * generated reply measures about 16; a scan that restarts per tag would reach the reply's length.
 */
const WORK_PER_CHARACTER = 64;

function check(reply: string): ParseDecision {
  const { value: d, work } = countWork(() => decideObserverOutput(reply));
  expect(work, JSON.stringify(reply.slice(0, 200))).toBeLessThanOrEqual(WORK_PER_CHARACTER * (reply.length + 64));
  expect(OUTPUT_CLASSES).toContain(d.class);
  expect(d.outcome === 'parsed').toBe(d.class === 'xml');
  if (d.outcome === 'dropped') expect(d.observations).toEqual([]);
  return d;
}

describe('fuzz: any reply gets a decision', () => {
  it('never throws on random text', () => {
    const random = seededRandom(1);
    for (let i = 0; i < 2_000; i += 1) {
      const length = Math.floor(random() * 400);
      let reply = '';
      for (let j = 0; j < length; j += 1) reply += String.fromCodePoint(Math.floor(random() * 0x2fff));
      check(reply);
    }
  });

  it('never throws on random tag soup', () => {
    const random = seededRandom(2);
    for (let i = 0; i < 3_000; i += 1) {
      const count = Math.floor(random() * 60);
      let reply = '';
      for (let j = 0; j < count; j += 1) reply += PIECES[Math.floor(random() * PIECES.length)];
      check(reply);
    }
  });

  it('never throws on a valid reply truncated at every offset', () => {
    const full = `${VALID_REPLY}\n${summaryXml({ request: 'r', completed: 'c' })}`;
    for (let offset = 0; offset <= full.length; offset += 1) {
      const d = check(full.slice(0, offset));
      if (offset === full.length) expect(d.summary).not.toBeNull();
    }
  });
});
