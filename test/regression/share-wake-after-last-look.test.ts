import { afterAll, expect, it } from 'vitest';
import { DEFAULT_SHARE_LOOP } from '../../src/share/index.js';
import { SHOP, startHandShareLoop } from '../support/hand-share-loop.js';
import { makeTempDir } from '../support/temp-dir.js';

/**
 * A wake that came while a pass was ending (its last look done, its promise not yet settled) was
 * dropped: the loop armed its timer as if nothing had asked, so a turn's memory or a `share add`
 * waited for the next look (then a second; with the idle pace, ten). A pass with nothing to await
 * ends in one step, so a wake right after the loop starts lands there.
 */
const temp = makeTempDir('memtrace-share-wake-');
let hand: ReturnType<typeof startHandShareLoop> | null = null;
afterAll(() => hand?.stop());

it('a wake while a pass ends gets a look of its own', async () => {
  hand = startHandShareLoop(temp.dir, 'woken');
  // The loop's first pass has looked (nothing shared) and is ending: the project comes now.
  hand.ledger.add(SHOP, Date.now());
  hand.loop.wake();
  expect(await hand.nextWait()).toBe(DEFAULT_SHARE_LOOP.checkMs);
  expect(hand.ledger.get(SHOP.project)?.lastError).not.toBeNull();
});
