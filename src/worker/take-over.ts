import type { InstalledPackage } from '../install/package-version.js';
import { backoffDelayMs } from '../backoff.js';
import { START_BACKOFF, type StartFailure, type StartState } from '../data-dir/start-state.js';
import type { Logger } from '../log.js';
import { isNewerVersion } from '../version-order.js';

/**
 * The running worker's side of an upgrade (docs/interfaces.md#upgrades). Every hook names the
 * install it ran from (the `x-memtrace-bin` header); when that install's package.json is newer
 * than this worker, the newer version is started beside it, asks this one to hand over
 * (POST /worker/hand-over on the socket), and this worker finishes what it holds and stops.
 * Only a strictly newer version is ever started or obeyed, so two installs never take turns;
 * and a newer install that cannot start is tried again only after START_BACKOFF's next step
 * (15 s, doubling to 30 min), never once per hook. This worker alone decides, so the schedule is
 * kept here; the failure itself goes to the data dir for `worker status`.
 */
export interface TakeOverDeps {
  self: { version: string; bin: string | null };
  dataDir: string;
  log: Logger;
  nowMs(): number;
  /** The install at `bin` as its files say now (one stat when unchanged). */
  packageAt(bin: string): InstalledPackage | null;
  /** Starts `<bin>/memtrace.cjs` with this worker's own command line, detached; calls `exited` if it ends. */
  spawn(pkg: InstalledPackage, exited: (code: number | null) => void): number | null;
  readStartState(): StartState | null;
  recordFailure(failure: StartFailure): void;
  /** Finishes what this worker holds, releases the data dir and ends the process. */
  handOver(to: string): void;
  defer(fn: () => void): void;
}

export interface TakeOverStatus {
  /** The newest install a hook came from, when newer than this worker. */
  installed: InstalledPackage | null;
  handingOver: string | null;
  /** Why the newer version could not take over (its last attempt). */
  failure: StartFailure | null;
}

export function createTakeOver(deps: TakeOverDeps) {
  let newest: InstalledPackage | null = null;
  let starting: { pkg: InstalledPackage; atMs: number } | null = null;
  let handingOver: string | null = null;
  let failure: StartFailure | null = null;
  let failures = 0;
  let nextTryMs = 0;

  function start(pkg: InstalledPackage): void {
    const atMs = deps.nowMs();
    if (atMs < nextTryMs) return;
    starting = { pkg, atMs };
    deps.log.info(`a newer memtrace is installed (${pkg.version} at ${pkg.bin}); starting it to take over from ${deps.self.version}`);
    const pid = deps.spawn(pkg, (code) => {
      if (handingOver !== null || starting?.pkg !== pkg) return;
      starting = null;
      // The new worker may have said why itself; otherwise say what is known.
      const said = deps.readStartState()?.last_error;
      failure =
        said && Date.parse(said.at) >= atMs
          ? said
          : {
              reason: 'take_over',
              detail: `memtrace ${pkg.version} (${pkg.bin}) exited with code ${code} before it took over from ${deps.self.version}`,
              fix: `see ${deps.dataDir}/logs/worker.out; '${pkg.bin}/memtrace.cjs worker start' tries again now`,
              version: pkg.version,
              at: new Date(deps.nowMs()).toISOString(),
            };
      failures += 1;
      nextTryMs = atMs + backoffDelayMs(START_BACKOFF, failures - 1);
      if (failure !== said) deps.recordFailure(failure);
      deps.log.warn('the newer memtrace did not take over; this worker keeps serving', {
        version: pkg.version,
        reason: failure.reason,
        detail: failure.detail,
      });
    });
    if (pid === null) starting = null;
  }

  return {
    /** A hook came from the install at `bin` (or the tick looks at this worker's own): a newer one takes over. */
    noticeBin(bin: string): void {
      if (handingOver !== null) return;
      const pkg = deps.packageAt(bin);
      if (!pkg || !isNewerVersion(pkg.version, deps.self.version)) return;
      if (newest === null || isNewerVersion(pkg.version, newest.version)) newest = pkg;
      if (starting !== null && !isNewerVersion(pkg.version, starting.pkg.version)) return;
      // Off the hook's reply: starting a process costs milliseconds.
      deps.defer(() => {
        if (handingOver === null && (starting === null || isNewerVersion(pkg.version, starting.pkg.version))) start(pkg);
      });
    },
    /** A worker of `version` asks for the data dir: only a newer one gets it. */
    requested(version: string): 'accepted' | 'refused' {
      if (handingOver !== null) return 'accepted';
      if (!isNewerVersion(version, deps.self.version)) return 'refused';
      handingOver = version;
      deps.log.info(`handing over to memtrace ${version}: finishing what this worker (${deps.self.version}) holds, then stopping`);
      deps.defer(() => deps.handOver(version));
      return 'accepted';
    },
    status(): TakeOverStatus {
      return { installed: newest, handingOver, failure };
    },
  };
}

export type TakeOver = ReturnType<typeof createTakeOver>;
