import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProviderFromEnv } from '../../src/providers/index.js';
import { makeTempDir } from '../support/temp-dir.js';

/**
 * The bug: the provider `memtrace repair` selects ran the host CLI in ~/.memtrace/observer even
 * with MEMTRACE_DATA_DIR set elsewhere — outside the scratch dir intake and mining ignore.
 */
describe('the observer CLI selected from the environment', () => {
  it('runs in MEMTRACE_DATA_DIR/observer, not in ~/.memtrace', async () => {
    const temp = makeTempDir();
    try {
      const bin = path.join(temp.dir, 'bin');
      const seen = path.join(temp.dir, 'cwd.txt');
      fs.mkdirSync(bin);
      // A stand-in `claude` that says where it ran and fails.
      fs.writeFileSync(path.join(bin, 'claude'), `#!/bin/sh\npwd >> '${seen}'\nexit 1\n`, { mode: 0o755 });
      const dataDir = path.join(temp.dir, 'elsewhere');
      const selected = createProviderFromEnv({
        MEMTRACE_PROVIDER: 'claude-code',
        MEMTRACE_DATA_DIR: dataDir,
        HOME: path.join(temp.dir, 'home'),
        PATH: `${bin}:/usr/bin:/bin`,
      });
      if (!('provider' in selected)) throw new Error(selected.error);
      await selected.provider.complete({ system: 's', messages: [{ role: 'user', content: 'u' }], maxOutputTokens: 10 }).catch(() => undefined);
      const cwds = fs.readFileSync(seen, 'utf8').trim().split('\n');
      expect(cwds.length).toBeGreaterThan(0);
      for (const cwd of cwds) expect(fs.realpathSync(cwd).startsWith(fs.realpathSync(path.join(dataDir, 'observer')))).toBe(true);
      expect(fs.existsSync(path.join(temp.dir, 'home', '.memtrace'))).toBe(false);
    } finally {
      temp.cleanup();
    }
  });
});
