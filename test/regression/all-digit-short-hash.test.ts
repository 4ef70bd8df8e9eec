import { describe, expect, it } from 'vitest';
import { claimedHashes } from '../../src/observer/commit-claims.js';

// CI failed once on `memtrace show`: the test repository's commit happened to start with
// 58677754, and "fixed in commit 58677754" went unchecked because an all-digit run was not taken
// as a hash. About one short hash in forty is all digits.
describe('a short hash of only digits or only letters after "commit"', () => {
  it('is claimed, so the repository checks it', () => {
    expect(claimedHashes('fixed in commit 58677754')).toEqual(['58677754']);
    expect(claimedHashes('reverted in commit deadbeef')).toEqual(['deadbeef']);
  });

  it('is still not claimed after sha/hash/revision, where such runs are sizes or numbers', () => {
    expect(claimedHashes('svn revision 1234567, file hash 98765432, sha deadbeef')).toEqual([]);
  });
});
