import { describe, expect, it } from 'vitest';
import { createPayloadKeeper } from '../../src/hosts/payload-keeper.js';

describe('a hook payload kept as it arrives', () => {
  it('is kept whole up to the limit, across chunks and characters split between them', () => {
    const bytes = Buffer.from('{"a":"é€😀"}');
    const keeper = createPayloadKeeper(bytes.length, 4);
    for (let i = 0; i < bytes.length; i += 3) keeper.add(bytes.subarray(i, i + 3));
    const kept = keeper.done();
    expect(kept.complete && kept.bytes.toString()).toBe('{"a":"é€😀"}');
  });

  it('past the limit keeps only its first and last bytes and counts them all', () => {
    const keeper = createPayloadKeeper(64, 8);
    keeper.add(Buffer.from('HEAD-'));
    for (let i = 0; i < 100; i += 1) keeper.add(Buffer.from('x'.repeat(10)));
    keeper.add(Buffer.from('-TAIL'));
    const kept = keeper.done();
    expect(kept.complete).toBe(false);
    if (kept.complete) return;
    expect({ head: kept.head.toString(), tail: kept.tail.toString(), totalBytes: kept.totalBytes }).toEqual({
      head: 'HEAD-xxx',
      tail: 'xxx-TAIL',
      totalBytes: 1010,
    });
  });

  it('is empty when nothing came', () => {
    expect(createPayloadKeeper(10, 4).done()).toEqual({ complete: true, bytes: Buffer.alloc(0) });
  });
});
