import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { openPrivateFile } from '../data-dir/private-files.js';
import { claimStartAttempt, readStartState, recordStartFailure, startAttemptDue } from '../data-dir/start-state.js';
import { readWorkerPackage } from '../data-dir/worker-package.js';
import { readInstalledPackage, type InstalledPackage } from '../install/package-version.js';
import { isNewerVersion } from '../version-order.js';
import { workerNodeFlags } from './worker-node-flags.js';

/**
 * Starts `memtrace worker` in the background, detached from the caller (a hook, a worker handing
 * over, or `memtrace worker start`), its output appended to DATA_DIR/logs/worker.out. Returns at
 * once; a second worker racing for the same data dir exits on the lock, so starting twice is
 * safe. `memtraceBin` is the bin/memtrace.cjs of the install to run; `args` its command line;
 * V8's flags for a long-lived worker go before it (worker-node-flags.ts).
 */
export function spawnWorkerDetached(
  memtraceBin: string,
  dataDir: string,
  env: Record<string, string | undefined>,
  args: readonly string[] = ['worker'],
  onExit?: (code: number | null) => void,
): number | null {
  const logs = path.join(dataDir, 'logs');
  const out = openPrivateFile(path.join(logs, 'worker.out'), 'a');
  try {
    const child = spawn(process.execPath, [...workerNodeFlags(process.versions.v8), memtraceBin, ...args], {
      detached: true,
      stdio: ['ignore', out, out],
      env: { ...env, MEMTRACE_DATA_DIR: dataDir } as NodeJS.ProcessEnv,
    });
    child.on('error', () => onExit?.(null));
    if (onExit) child.once('exit', (code) => onExit(code));
    child.unref();
    return child.pid ?? null;
  } finally {
    fs.closeSync(out);
  }
}

/** The install a new worker runs from: the newest of this one and the newest that ran here, when still installed. Pure. */
export function newestInstall(own: InstalledPackage, known: InstalledPackage | null): InstalledPackage {
  return known !== null && isNewerVersion(known.version, own.version) ? known : own;
}

/** The install a start on this data dir should run: this one, unless a newer one ran here and is still installed. */
export function installToStart(dataDir: string, ownBin: string): InstalledPackage {
  const own = readInstalledPackage(path.dirname(ownBin)) ?? { bin: path.dirname(ownBin), version: '0.0.0' };
  const recorded = readWorkerPackage(dataDir);
  return newestInstall(own, recorded === null ? null : readInstalledPackage(recorded.bin));
}

/**
 * A hook found no worker: starts one when the data dir's shared schedule allows (one attempt per
 * step of the backoff, whatever the number of hooks), from the newest install known to have run
 * here. Null when it is not time yet (or another hook is starting one right now).
 */
export function startWorkerIfDue(memtraceBin: string, dataDir: string, env: Record<string, string | undefined>, nowMs: number): InstalledPackage | null {
  // A worker that holds the data dir but does not answer yet is starting (or handing over): leave it be.
  if (workerAlive(dataDir)) return null;
  noteSilentExit(dataDir, nowMs);
  if (claimStartAttempt(dataDir, nowMs) === null) return null;
  const install = installToStart(dataDir, memtraceBin);
  spawnWorkerDetached(path.join(install.bin, 'memtrace.cjs'), dataDir, env);
  return install;
}

/** DATA_DIR/worker.json names a live process: some worker holds the data dir (worker.json goes when it lets go). */
function workerAlive(dataDir: string): boolean {
  try {
    const { pid } = JSON.parse(fs.readFileSync(path.join(dataDir, 'worker.json'), 'utf8')) as { pid?: unknown };
    if (typeof pid !== 'number' || pid <= 0) return false;
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, another user's (a data dir is one user's; treat it as alive all the same).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The last attempt's time passed with no worker and no reason recorded: the worker died before it
 * could say why (a missing native module, a crash while loading). Said with the last line it
 * printed, so `worker status` and the next SessionStart have something to show.
 */
function noteSilentExit(dataDir: string, nowMs: number): void {
  const state = readStartState(dataDir);
  if (state === null || state.attempts === 0 || state.last_error !== null || state.running_since !== null || !startAttemptDue(state, nowMs)) return;
  const lastLine = lastLineOf(path.join(dataDir, 'logs', 'worker.out'));
  recordStartFailure(dataDir, {
    reason: 'exited',
    detail: `the worker started at ${state.last_attempt_at} exited without saying why${lastLine ? ` (its last words: ${lastLine.slice(0, 300)})` : ''}`,
    fix: `see ${path.join(dataDir, 'logs', 'worker.out')}, then run 'memtrace worker start'`,
    version: 'unknown',
    at: new Date(nowMs).toISOString(),
  });
}

function lastLineOf(file: string): string | null {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const length = Math.min(size, 4096);
      const buffer = Buffer.alloc(length);
      fs.readSync(fd, buffer, 0, length, size - length);
      return (
        buffer
          .toString('utf8')
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l !== '')
          .at(-1) ?? null
      );
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}
