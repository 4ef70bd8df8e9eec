import path from 'node:path';
import { listSpool, readStartState, readWorkerPackage, startProblemLine, type StartState, type WorkerInfo } from '../data-dir/index.js';
import { readInstalledPackage, type InstalledPackage } from '../install/package-version.js';
import { APP_VERSION } from '../version.js';
import { isNewerVersion } from '../version-order.js';
import { MEMTRACE_BIN } from './memtrace-bin.js';

/**
 * What `worker status` (and `memtrace doctor`) say about the worker's life cycle, read from the
 * data dir with no worker needed: which version runs against which is installed, the HTTP port
 * it fell back to, why it cannot start and when hooks try again, and what waits in the spool.
 */
export interface WorkerLifecycle {
  /** The version the running worker serves; null when none runs. */
  running_version: string | null;
  /** This command's own install. */
  installed: InstalledPackage;
  /** The newest install that ran a worker on this data dir, as its files say now (it is what hooks start). */
  newest_installed: InstalledPackage | null;
  /** The running worker's HTTP port, and the one it was configured for when another program held that. */
  port: number | null;
  port_wanted: number | null;
  /** DATA_DIR/worker-start.json: start attempts, the next one, the last failure. Null when all is well. */
  start: StartState | null;
  /** The line saying what keeps the worker from starting and what to do; null when nothing does. */
  problem: string | null;
  /** Hook events waiting in the spool for a worker. */
  spooled: number;
}

export function readWorkerLifecycle(dataDir: string, info: WorkerInfo | null, nowMs: number): WorkerLifecycle {
  const installed = readInstalledPackage(path.dirname(MEMTRACE_BIN)) ?? { bin: path.dirname(MEMTRACE_BIN), version: APP_VERSION };
  const recorded = readWorkerPackage(dataDir);
  const start = readStartState(dataDir);
  return {
    running_version: info?.version ?? null,
    installed,
    newest_installed: recorded === null ? null : readInstalledPackage(recorded.bin),
    port: info?.port ?? null,
    port_wanted: info?.port_wanted ?? null,
    start,
    problem: info === null ? startProblemLine(start, dataDir, nowMs) : null,
    spooled: listSpool(dataDir).length,
  };
}

/** The lines `worker status` adds: versions when they differ, the port fallback, a start problem, the spool. */
export function describeLifecycle(life: WorkerLifecycle): string[] {
  const lines: string[] = [];
  const newest = [life.installed, life.newest_installed].reduce<InstalledPackage | null>(
    (best, p) => (p !== null && (best === null || isNewerVersion(p.version, best.version)) ? p : best),
    null,
  );
  if (life.running_version !== null) {
    const behind = newest !== null && isNewerVersion(newest.version, life.running_version);
    lines.push(
      behind
        ? `  version      ${life.running_version} running; ${newest.version} installed (${newest.bin}): it takes over at the next hook event`
        : `  version      ${life.running_version}`,
    );
  }
  if (life.port_wanted !== null)
    lines.push(`  http port    ${life.port ?? '?'}, because ${life.port_wanted} was taken by another program (hooks and MCP use the data dir's socket)`);
  if (life.problem !== null) lines.push(`  problem      ${life.problem}`);
  else if (life.running_version !== null && life.start?.last_error) {
    const e = life.start.last_error;
    lines.push(`  take-over    memtrace ${e.version} could not take over: ${e.detail}. To fix: ${e.fix}`);
  }
  if (life.spooled > 0) lines.push(`  spool        ${life.spooled} hook event(s) waiting for the worker`);
  return lines;
}
