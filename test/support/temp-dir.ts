import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A fresh directory under the OS temp dir, removed by the returned cleanup. A detached hook the
 * test started (the perl forwarder's background Node hook) may still be writing a file there as
 * the test ends: the removal retries a directory that filled again (ENOTEMPTY) for a moment.
 */
export function makeTempDir(prefix = 'memtrace-'): { dir: string; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) };
}
