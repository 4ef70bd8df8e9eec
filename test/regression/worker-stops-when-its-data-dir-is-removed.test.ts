import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { noProvider } from '../../src/providers/index.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startHarness } from '../support/worker-harness.js';

/**
 * Found in the merged suite (issue 35): a hook that finds no worker starts one, and workers
 * started by tests' hooks outlived their deleted temp dirs for the rest of the run (six at once),
 * writing to deleted files. A user's `rm -rf ~/.memtrace` left the same: a worker serving nobody.
 * The worker now stops at its next tick once its store is gone; the next hook starts a new one.
 */
describe('a worker whose data dir is removed', () => {
  it('stops at its next tick and says so', async () => {
    const temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    const h = await startHarness(noProvider(), { dataDir, tickMs: 50 });
    try {
      fs.rmSync(dataDir, { recursive: true, force: true });
      await h.worker.dataDirGone;
      expect(h.log.records.some((l) => l.message.includes('the store was removed'))).toBe(true);
    } finally {
      await h.worker.stop();
      temp.cleanup();
    }
  });
});
