import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decideObserverOutput } from '../../src/observer/index.js';
import { scanCommonReply } from '../../src/observer/common-reply.js';
import { stripWholeReplyFence } from '../../src/observer/decide.js';
import { VALID_REPLY, summaryXml } from '../support/replies.js';
import { commonReply, mutatedReply, seededRandom } from '../support/reply-fuzz.js';

const takesFastPath = (reply: string) => scanCommonReply(stripWholeReplyFence(reply)) !== null;

/** Both paths, and the decision must be the same object. */
function expectSameDecision(reply: string): void {
  const full = decideObserverOutput(reply, { fastPath: false });
  const fast = decideObserverOutput(reply);
  if (JSON.stringify(fast) !== JSON.stringify(full)) expect({ reply, fast }).toEqual({ reply, fast: full });
}

/**
 * The fixed seeds always run; one more seed is new on every run, so the fuzz keeps exploring. Its
 * value is in the test's name, which a failure prints; MEMTRACE_FUZZ_SEED=<n> replays it.
 */
const FRESH_SEED = Number(process.env.MEMTRACE_FUZZ_SEED) || randomInt(1, 2 ** 31);
const seeds = (fixed: number) =>
  [
    [`seed ${fixed}`, fixed],
    [`seed ${FRESH_SEED} (random this run; replay with MEMTRACE_FUZZ_SEED=${FRESH_SEED})`, FRESH_SEED],
  ] as const;

describe('fast path vs full path: identical decisions', () => {
  it.each(seeds(21))('on generated common replies, most of which take the fast path (%s)', (_name, seed) => {
    const random = seededRandom(seed);
    let fast = 0;
    for (let i = 0; i < 2_000; i += 1) {
      const reply = commonReply(random);
      if (takesFastPath(reply)) fast += 1;
      expectSameDecision(reply);
    }
    expect(fast).toBeGreaterThan(1_300);
  });

  it.each(seeds(22))('on replies with entities, CDATA, attributes, odd case and stray markup dropped in (%s)', (_name, seed) => {
    const random = seededRandom(seed);
    let fast = 0;
    for (let i = 0; i < 3_000; i += 1) {
      const reply = mutatedReply(random);
      if (takesFastPath(reply)) fast += 1;
      expectSameDecision(reply);
    }
    // Some mutations keep the common shape (a space, a newline, a '>'), so both paths are exercised.
    expect(fast).toBeGreaterThan(100);
    expect(fast).toBeLessThan(2_800);
  });

  it.each(seeds(23))('on replies truncated at every offset (%s)', (_name, seed) => {
    const random = seededRandom(seed);
    const replies = [`${VALID_REPLY}\n${summaryXml({ request: 'r', completed: 'c' })}`, commonReply(random), commonReply(random), mutatedReply(random)];
    let fast = 0;
    for (const full of replies) {
      for (let offset = 0; offset <= full.length; offset += 1) {
        const reply = full.slice(0, offset);
        if (takesFastPath(reply)) fast += 1;
        expectSameDecision(reply);
      }
    }
    expect(fast).toBeGreaterThan(100);
  });

  it("reads the prompt's own reply shape on the fast path", () => {
    expect(takesFastPath(VALID_REPLY.replace(' type="bugfix"', ''))).toBe(true);
    const typed = '<observation type="bugfix">\n<title>t</title>\n<facts><fact>a</fact></facts>\n</observation>';
    expect(takesFastPath(typed)).toBe(true);
    expect(decideObserverOutput(typed).observations[0]).toMatchObject({ type: 'bugfix', title: 't', facts: ['a'] });
    expect(takesFastPath('<observation><title>a &amp; b</title></observation>')).toBe(false);
  });
});
