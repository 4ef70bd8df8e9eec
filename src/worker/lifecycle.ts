import path from 'node:path';
import type { Clock } from '../clock.js';
import {
  clearStartState,
  readStartState,
  readWorkerPackage,
  recordStartFailure,
  recordWorkerRunning,
  STABLE_AFTER_MS,
  writeWorkerPackage,
} from '../data-dir/index.js';
import { spawnWorkerDetached } from '../hook/start-worker.js';
import { buildNativeForwarderAsync, forwarderOutdated, runProgramAsync } from '../install/index.js';
import { createPackageWatch, readInstalledPackage } from '../install/package-version.js';
import type { Logger } from '../log.js';
import { isNewerVersion } from '../version-order.js';
import type { LifecycleHealth } from './health-report.js';
import { createTakeOver, type TakeOver } from './take-over.js';

export interface LifecycleConfig {
  dataDir: string;
  version: string;
  /** The folder of the install this worker runs from (`<package>/bin`); null in-process (tests). */
  bin: string | null;
  /** This worker's own command line after `memtrace.cjs`, for the newer version to start with. */
  argv: readonly string[];
  env: Record<string, string | undefined>;
}

export interface Lifecycle {
  takeOver: TakeOver;
  /** The worker listens: it counts as started, its install is remembered, its forwarder built. */
  started(): void;
  /** Every tick: an upgrade of this worker's own install, with no hook to say so. */
  tick(): void;
  /** /health's part: the versions, and a newer install that could not take over (no paths). */
  health(): Omit<LifecycleHealth, 'portWanted'>;
  /** The line a live SessionStart gets while a newer install cannot take over. */
  notice(): string | null;
  /** The worker stops cleanly: the start schedule's earlier attempts no longer count. */
  stop(): void;
}

/**
 * The worker's life cycle in the data dir: the shared start schedule (DATA_DIR/worker-start.json)
 * settled once the worker runs well, the newest install that ran here remembered for later
 * starts, the native forwarder rebuilt for this version's source after an upgrade, and the
 * take-over by a newer install (take-over.ts).
 */
export function createLifecycle(config: LifecycleConfig, deps: { log: Logger; clock: Clock; handOver(version: string): void }): Lifecycle {
  const { dataDir } = config;
  const { log } = deps;
  const packageAt = createPackageWatch();
  let stable: NodeJS.Timeout | null = null;
  const takeOver = createTakeOver({
    self: { version: config.version, bin: config.bin },
    dataDir,
    log,
    nowMs: () => deps.clock.now(),
    packageAt,
    spawn: (pkg, exited) => spawnWorkerDetached(path.join(pkg.bin, 'memtrace.cjs'), dataDir, config.env, config.argv, exited),
    readStartState: () => readStartState(dataDir),
    recordFailure: (failure) => recordStartFailure(dataDir, failure),
    handOver: deps.handOver,
    defer: (fn) => setImmediate(fn),
    later: (ms, fn) => {
      const timer = setTimeout(fn, ms);
      timer.unref();
      return { cancel: () => clearTimeout(timer) };
    },
  });

  function rememberInstall(): void {
    if (config.bin === null) return;
    const known = readWorkerPackage(dataDir);
    const stillThere = known === null ? null : readInstalledPackage(known.bin);
    if (stillThere === null || known?.bin === config.bin || !isNewerVersion(stillThere.version, config.version))
      writeWorkerPackage(dataDir, { version: config.version, bin: config.bin });
  }

  function rebuildForwarder(): void {
    if (config.bin === null) return;
    const packageRoot = path.dirname(config.bin);
    if (!forwarderOutdated(packageRoot, dataDir)) return;
    void buildNativeForwarderAsync({ packageRoot, dataDir, compiler: config.env.CC || 'cc', run: runProgramAsync })
      .then((result) => log.info(`hook forwarder for ${config.version}: ${result.status}`, result.status === 'failed' ? { reason: result.reason } : {}))
      .catch((error) => log.warn('could not build the hook forwarder; hooks use perl or curl', { error: String(error) }));
  }

  return {
    takeOver,
    started() {
      try {
        recordWorkerRunning(dataDir, deps.clock.now());
        rememberInstall();
      } catch (error) {
        log.warn('could not record the worker as started', { error: String(error) });
      }
      // Earlier failures stop counting once this start has held a while.
      stable = setTimeout(() => {
        try {
          if (readStartState(dataDir)?.running_since) clearStartState(dataDir);
        } catch (error) {
          log.warn('could not clear the start state', { error: String(error) });
        }
      }, STABLE_AFTER_MS);
      stable.unref();
      rebuildForwarder();
    },
    tick() {
      if (config.bin !== null) takeOver.noticeBin(config.bin);
    },
    health() {
      const status = takeOver.status();
      return {
        installedVersion: status.installed?.version ?? null,
        handingOverTo: status.handingOver,
        takeOverFailure: status.failure ? { reason: status.failure.reason, version: status.failure.version, at: status.failure.at } : null,
      };
    },
    notice() {
      const { installed, failure } = takeOver.status();
      if (!installed || !failure) return null;
      return `memtrace ${installed.version} is installed but could not take over from the running ${config.version}: ${failure.detail}. To fix: ${failure.fix}.`;
    },
    stop() {
      if (stable) clearTimeout(stable);
      // A clean stop (asked for, or a hand-over) is no failed start: the next start need not wait.
      try {
        const state = readStartState(dataDir);
        if (state?.running_since && state.last_error === null) clearStartState(dataDir);
      } catch (error) {
        log.warn('could not clear the start state', { error: String(error) });
      }
    },
  };
}
