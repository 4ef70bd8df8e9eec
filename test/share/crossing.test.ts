import { describe, expect, it } from 'vitest';
import { crossingObservation, crossingRoots, crossingSummary, OUTSIDE_PATH, relativizeFiles, relativizeText } from '../../src/share/crossing.js';
import { secretSamples } from '../support/secret-samples.js';

const ROOT = '/home/alice/src/shop';
const roots = crossingRoots(ROOT);

describe('what crosses to the shared database', () => {
  it('makes a path inside the repository relative to its root, inside the text too', () => {
    expect(relativizeText('the total is rounded in /home/alice/src/shop/src/cart.ts.', roots)).toBe('the total is rounded in src/cart.ts.');
    expect(relativizeText('ran (cd /home/alice/src/shop && npm test)', roots)).toBe('ran (cd . && npm test)');
    expect(relativizeText('see file:///home/alice/src/shop/README.md', roots)).toBe('see README.md');
  });

  it('replaces a path outside the repository, so no user name or home travels', () => {
    const text = relativizeText('config in /home/alice/.npmrc, cache at ~/Library/Caches/x and C:\\Users\\alice\\x.txt; /etc/hosts too', roots);
    expect(text).toBe(`config in ${OUTSIDE_PATH}, cache at ${OUTSIDE_PATH} and ${OUTSIDE_PATH}; ${OUTSIDE_PATH} too`);
    expect(text).not.toContain('alice');
  });

  it('does not mistake URLs, fractions or relative paths for absolute paths', () => {
    const text = 'see https://example.com/a/b and 3/4 of src/a/b.ts';
    expect(relativizeText(text, roots)).toBe(text);
  });

  it('keeps a path that climbs out of the root with .. out', () => {
    expect(relativizeText('/home/alice/src/shop/../secrets/x', roots)).toBe(OUTSIDE_PATH);
    expect(relativizeFiles(['/home/alice/src/shop/../x'], roots)).toEqual([]);
  });

  it('lists files inside the repository relative and leaves the others out', () => {
    expect(relativizeFiles(['/home/alice/src/shop/src/cart.ts', '/etc/passwd', 'src/util.ts', '~/x', '/home/alice/src/shop/src/cart.ts'], roots)).toEqual([
      'src/cart.ts',
      'src/util.ts',
    ]);
  });

  it('takes the worktree a record was made in as a root too, the longest first', () => {
    const both = crossingRoots('/home/alice/src/shop', '/home/alice/src/shop/.worktrees/fix');
    expect(relativizeText('/home/alice/src/shop/.worktrees/fix/src/a.ts', both)).toBe('src/a.ts');
  });

  it('redacts a secret once more on the way out and counts it', () => {
    const sample = secretSamples(7).find((s) => s.kind !== 'private')!;
    const counts = {};
    const body = crossingObservation(
      {
        type: 'discovery',
        title: 'token',
        subtitle: '',
        narrative: `the tool printed ${sample.text} in /home/alice/src/shop/.env`,
        facts: [sample.text],
        concepts: [],
        files_read: ['/home/alice/src/shop/.env'],
        files_modified: [],
      },
      roots,
      counts,
    );
    expect(JSON.stringify(body)).not.toContain(sample.secret);
    expect(JSON.stringify(body)).toContain('[REDACTED:');
    expect(body).toMatchObject({ kind: 'observation', files_read: ['.env'] });
    expect(Object.values(counts).reduce((a: number, b) => a + (b as number), 0)).toBeGreaterThan(0);
  });

  it('treats every field of a session summary the same way', () => {
    const body = crossingSummary(
      { request: 'fix /home/alice/src/shop/a.ts', investigated: '/tmp/x', learned: '', completed: '', next_steps: '', notes: 'n\u0000' },
      roots,
      {},
    );
    expect(body).toEqual({ kind: 'summary', request: 'fix a.ts', investigated: OUTSIDE_PATH, learned: '', completed: '', next_steps: '', notes: 'n' });
  });
});
