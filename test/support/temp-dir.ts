import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A fresh directory under the OS temp dir, removed by the returned cleanup. Hooks a test fired may
 * still run detached (the perl forwarder hands its event to a background Node hook, and any hook
 * may start a worker): the cleanup first waits for the processes whose MEMTRACE_DATA_DIR lies in
 * the directory to end, stopping a worker among them, so none writes into it as it is removed.
 */
export function makeTempDir(prefix = 'memtrace-'): { dir: string; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return {
    dir,
    cleanup: () => {
      settleProcessesUsing(dir);
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}

const SETTLE_MS = 20_000;

function settleProcessesUsing(dir: string): void {
  const deadline = Date.now() + SETTLE_MS;
  const stopped = new Set<number>();
  for (;;) {
    const pids = processesUsing(dir);
    if (pids.length === 0 || Date.now() > deadline) return;
    for (const pid of pids) {
      if (stopped.has(pid) || !commandLine(pid).includes('\0worker')) continue;
      stopped.add(pid);
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
}

/** Other processes whose environment names a data dir inside `dir` (Linux /proc; none elsewhere). */
function processesUsing(dir: string): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const needle = `MEMTRACE_DATA_DIR=${dir}`;
  const found: number[] = [];
  for (const name of entries) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const environ = fs.readFileSync(`/proc/${pid}/environ`, 'latin1');
      if (environ.includes(`\0${needle}`) || environ.startsWith(needle)) found.push(pid);
    } catch {
      /* gone, or not ours to read */
    }
  }
  return found;
}

function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1');
  } catch {
    return '';
  }
}
