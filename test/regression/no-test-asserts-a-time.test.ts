/**
 * Issue 17, item 8: `claude-code-memtrace.test.ts` asserted that a hooked session took at most
 * 1.5× an unhooked one; on a loaded 2-core machine it measured 1.53 and 1.97, so the suite — and
 * CI — failed at random. Speed is measured by `npm run bench`, never asserted in a test: this
 * scan fails on a test that compares a measured duration, or a ratio of durations, to a bound.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const TEST_ROOT = path.resolve(import.meta.dirname, '..');

/**
 * `expect(<a clock read minus a start>)` or `expect(<a name that holds a duration or a ratio>)`
 * held under a bound. (A lower bound — "waited at least the backoff" — cannot fail from load.)
 */
const TIMED = [
  /expect\((?:performance\.now\(\)|Date\.now\(\)) - \w+\)\.(?:toBeLessThan|toBeLessThanOrEqual)\(/,
  /expect\((?:ratio|\w*(?:Ratio|WallMs|wallMs|elapsedMs|ElapsedMs|latency|Latency|p99|p95))\)\.(?:toBeLessThan|toBeLessThanOrEqual)\(/,
  /expect\(Math\.max\(\.\.\.\w*(?:latenc|sample|duration)\w*\)\)\.toBeLessThan/i,
];

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(full);
    return entry.name.endsWith('.ts') && full !== import.meta.filename ? [full] : [];
  });
}

describe('the test suite', () => {
  it('asserts no time and no ratio of times', () => {
    const found = testFiles(TEST_ROOT).flatMap((file) =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (TIMED.some((p) => p.test(line)) ? [`${path.relative(TEST_ROOT, file)}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  it('would catch the assertion that made the suite fail on a busy machine', () => {
    // Put together here, so that no line of the repository is itself a timed assertion.
    const assertion = (subject: string, bound: string) => `expect(${subject}).${bound}`;
    const samples = [assertion('ratio', 'toBeLessThanOrEqual(1.5);'), assertion('Date.now() - started', 'toBeLessThan(4_000);')];
    for (const sample of samples)
      expect(
        TIMED.some((p) => p.test(sample)),
        sample,
      ).toBe(true);
  });
});
