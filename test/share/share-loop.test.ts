import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SHARE_LOOP } from '../../src/share/index.js';
import { SHOP, startHandShareLoop } from '../support/hand-share-loop.js';
import { makeTempDir } from '../support/temp-dir.js';

/**
 * The share loop's pace. Each look wakes the whole worker (about 0.35 ms of CPU on a 2-core
 * machine, however little it finds), so a worker that shares nothing looks rarely, and one that
 * shares looks at its queue every second.
 */
const temp = makeTempDir('memtrace-share-loop-');
const running: Array<ReturnType<typeof startHandShareLoop>> = [];
afterEach(async () => {
  for (const hand of running.splice(0)) await hand.stop();
});
const start = (name: string) => {
  const hand = startHandShareLoop(temp.dir, name);
  running.push(hand);
  return hand;
};

describe('the share loop', () => {
  it('looks at its idle pace while no project is shared', async () => {
    const hand = start('nothing-shared');
    expect(await hand.nextWait()).toBe(DEFAULT_SHARE_LOOP.idleCheckMs);
    hand.fire();
    expect(await hand.nextWait()).toBe(DEFAULT_SHARE_LOOP.idleCheckMs);
  });

  it('takes up a project shared while it waited, then looks every checkMs', async () => {
    const hand = start('shared-later');
    expect(await hand.nextWait()).toBe(DEFAULT_SHARE_LOOP.idleCheckMs);
    // No URL in share.json: the look fails, says so in the ledger, and the pace is the sharing one.
    hand.ledger.add(SHOP, Date.now());
    hand.fire();
    expect(await hand.nextWait()).toBe(DEFAULT_SHARE_LOOP.checkMs);
    expect(hand.ledger.get(SHOP.project)?.lastError?.message).toMatch(/no connection URL/);
  });

  it('goes back to its idle pace once the last project is no longer shared', async () => {
    const hand = start('shared-then-removed');
    await hand.nextWait();
    hand.ledger.add(SHOP, Date.now());
    hand.fire();
    expect(await hand.nextWait()).toBe(DEFAULT_SHARE_LOOP.checkMs);
    hand.ledger.remove(SHOP.project, { forgetPublished: false });
    hand.fire();
    expect(await hand.nextWait()).toBe(DEFAULT_SHARE_LOOP.idleCheckMs);
  });
});
