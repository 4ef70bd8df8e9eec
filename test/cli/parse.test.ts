import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIO } from '../support/cli-io.js';
import { VALID_REPLY } from '../support/replies.js';

describe('memtrace parse', () => {
  it('prints the decision for a reply on stdin with the spec key order', async () => {
    const c = captureIO({ stdin: VALID_REPLY });
    expect(await main(['parse'], c.io)).toBe(0);
    const decision = JSON.parse(c.stdout());
    expect(Object.keys(decision)).toEqual(['outcome', 'class', 'observations', 'summary', 'skipped', 'skip_reason', 'counts']);
    expect(decision.outcome).toBe('parsed');
    expect(Object.keys(decision.observations[0])).toEqual(['type', 'title', 'subtitle', 'narrative', 'facts', 'concepts', 'files_read', 'files_modified']);
  });

  it('exits 0 for a dropped reply too', async () => {
    const c = captureIO({ stdin: 'just prose' });
    expect(await main(['parse'], c.io)).toBe(0);
    expect(JSON.parse(c.stdout())).toMatchObject({ outcome: 'dropped', class: 'prose' });
  });

  it('shows help with exit 0', async () => {
    const c = captureIO();
    expect(await main(['parse', '--help'], c.io)).toBe(0);
    expect(c.stdout()).toContain('usage: memtrace parse');
  });

  it('rejects an unknown flag with the usage and exit 2', async () => {
    const c = captureIO({ stdin: '' });
    expect(await main(['parse', '--bogus'], c.io)).toBe(2);
    expect(c.stderr()).toMatch(/memtrace parse: .*bogus[\s\S]*usage: memtrace parse/);
  });

  it('reports an unreadable stdin in one line with exit 1', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('EIO: input/output error'));
      },
    });
    const c = captureIO({ stdin: failing });
    expect(await main(['parse'], c.io)).toBe(1);
    expect(c.stderr().trim().split('\n')).toHaveLength(1);
    expect(c.stderr()).toContain('cannot read standard input');
  });

  it('refuses input over 8 MiB', async () => {
    const c = captureIO({ stdin: Buffer.alloc(8 * 1024 * 1024 + 1, 'a') });
    expect(await main(['parse'], c.io)).toBe(1);
    expect(c.stderr()).toContain('larger than');
  });

  it('names an unknown command and exits 2', async () => {
    const c = captureIO();
    expect(await main(['frobnicate'], c.io)).toBe(2);
    expect(c.stderr()).toContain("unknown command 'frobnicate'");
  });
});
