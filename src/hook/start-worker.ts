import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { openPrivateFile } from '../data-dir/private-files.js';

/**
 * Starts `memtrace worker` in the background, detached from the caller (a hook or
 * `memtrace worker start`), its output appended to DATA_DIR/logs/worker.out. Returns at once;
 * a second worker racing for the same data dir exits on the lock, so starting twice is safe.
 * `memtraceBin` is this package's bin/memtrace.cjs (the caller knows where it runs from).
 */
export function spawnWorkerDetached(memtraceBin: string, dataDir: string, env: Record<string, string | undefined>): number | null {
  const logs = path.join(dataDir, 'logs');
  const out = openPrivateFile(path.join(logs, 'worker.out'), 'a');
  try {
    const child = spawn(process.execPath, [memtraceBin, 'worker'], {
      detached: true,
      stdio: ['ignore', out, out],
      env: { ...env, MEMTRACE_DATA_DIR: dataDir } as NodeJS.ProcessEnv,
    });
    child.unref();
    return child.pid ?? null;
  } finally {
    fs.closeSync(out);
  }
}
