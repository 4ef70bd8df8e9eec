import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../src/install/line-diff.js';
import { makeTempDir } from '../support/temp-dir.js';

const lines = (n: number, f = (i: number) => `line ${i}`) => `${Array.from({ length: n }, (_, i) => f(i + 1)).join('\n')}\n`;

describe('unifiedDiff', () => {
  it('prints one hunk with 3 lines of context around a change', () => {
    const before = lines(10);
    const after = before.replace('line 5\n', 'line five\nline 5b\n');
    expect(unifiedDiff(before, after, { from: 'a', to: 'b' })).toBe(
      ['--- a', '+++ b', '@@ -2,7 +2,8 @@', ' line 2', ' line 3', ' line 4', '-line 5', '+line five', '+line 5b', ' line 6', ' line 7', ' line 8', ''].join(
        '\n',
      ),
    );
  });

  it('is empty for equal texts, and adds everything to an empty file', () => {
    expect(unifiedDiff('x\n', 'x\n', { from: 'a', to: 'b' })).toBe('');
    expect(unifiedDiff('', '{}\n', { from: '/dev/null', to: 'b' })).toBe('--- /dev/null\n+++ b\n@@ -0,0 +1,1 @@\n+{}\n');
  });

  it('produces hunks the real patch tool applies to get the new text', () => {
    const temp = makeTempDir('memtrace-diff-');
    try {
      const before = lines(60);
      const after = lines(60, (i) => (i === 3 ? 'three' : i === 30 ? 'thirty\nextra' : i === 58 ? '' : `line ${i}`)).replace('\n\n', '\n');
      const file = path.join(temp.dir, 'f.txt');
      fs.writeFileSync(file, before);
      const diff = unifiedDiff(before, after, { from: 'f.txt', to: 'f.txt' });
      expect(diff.match(/^@@/gm)).toHaveLength(3);
      const run = spawnSync('patch', ['--silent', file], { input: diff, encoding: 'utf8' });
      if (run.error) return void console.warn(`patch not available: ${run.error.message}`);
      expect(run.status, run.stderr + run.stdout).toBe(0);
      expect(fs.readFileSync(file, 'utf8')).toBe(after);
    } finally {
      temp.cleanup();
    }
  });
});
