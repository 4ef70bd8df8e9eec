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
  /** Calls `fn` after `ms` (cancellable): how long a starting newer worker may take to ask. */
  later(ms: number, fn: () => void): { cancel(): void };
}

/** How long a newer worker started to take over may take to ask for the data dir before this one serves hooks again. */
const TAKE_OVER_ASK_WITHIN_MS = 60_000;

export interface TakeOverStatus {
  /** The newest install a hook came from, when newer than this worker. */
  installed: InstalledPackage | null;
  handingOver: string | null;
  /** Why the newer version could not take over (its last attempt). */
  failure: StartFailure | null;
}

export function createTakeOver(deps: TakeOverDeps) {
  let newest: InstalledPackage | null = null;
  let starting: { pkg: InstalledPackage; atMs: number; timer: { cancel(): void } | null } | null = null;
  let handingOver: string | null = null;
  let failure: StartFailure | null = null;
  let failures = 0;
  let nextTryMs = 0;

  function start(pkg: InstalledPackage): void {
    const atMs = deps.nowMs();
    if (atMs < nextTryMs) return;
    const attempt = { pkg, atMs, timer: null as { cancel(): void } | null };
    starting = attempt;
    deps.log.info(`a newer memtrace is installed (${pkg.version} at ${pkg.bin}); starting it to take over from ${deps.self.version}`);
    const gaveUp = (detail: string, said: StartFailure | null) => {
      if (handingOver !== null || starting !== attempt) return;
      starting = null;
      attempt.timer?.cancel();
      failure = said ?? {
        reason: 'take_over',
        detail,
        fix: `see ${deps.dataDir}/logs/worker.out; '${pkg.bin}/memtrace.cjs worker start' tries again now`,
        version: pkg.version,
        at: new Date(deps.nowMs()).toISOString(),
      };
      failures += 1;
      nextTryMs = atMs + backoffDelayMs(START_BACKOFF, failures - 1);
      if (failure !== said) deps.recordFailure(failure);
      deps.log.warn('the newer memtrace did not take over; this worker serves again', { version: pkg.version, reason: failure.reason, detail: failure.detail });
    };
    const pid = deps.spawn(pkg, (code) => {
      // The new worker may have said why itself; otherwise say what is known.
      const said = deps.readStartState()?.last_error ?? null;
      gaveUp(
        `memtrace ${pkg.version} (${pkg.bin}) exited with code ${code} before it took over from ${deps.self.version}`,
        said && Date.parse(said.at) >= atMs ? said : null,
      );
    });
    if (pid === null) {
      starting = null;
      return;
    }
    attempt.timer = deps.later(TAKE_OVER_ASK_WITHIN_MS, () =>
      gaveUp(`memtrace ${pkg.version} (${pkg.bin}, pid ${pid}) did not ask to take over within ${TAKE_OVER_ASK_WITHIN_MS / 1000} s`, null),
    );
  }

  return {
    /** A hook came from the install at `bin` (or the tick looks at this worker's own): a newer one takes over. */
    noticeBin(bin: string): void {
      if (handingOver !== null) return;
      const pkg = deps.packageAt(bin);
      if (!pkg || !isNewerVersion(pkg.version, deps.self.version)) return;
      if (newest === null || isNewerVersion(pkg.version, newest.version)) newest = pkg;
      if (starting !== null && !isNewerVersion(pkg.version, starting.pkg.version)) return;
      // At once, before this hook's event is taken: it is held for the newer version like every
      // later one (starting the process costs this one hook a few milliseconds, once).
      start(pkg);
    },
    /** A worker of `version` asks for the data dir: only a newer one gets it. */
    requested(version: string): 'accepted' | 'refused' {
      if (handingOver !== null) return 'accepted';
      if (!isNewerVersion(version, deps.self.version)) return 'refused';
      handingOver = version;
      starting?.timer?.cancel();
      deps.log.info(`handing over to memtrace ${version}: finishing what this worker (${deps.self.version}) holds, then stopping`);
      deps.defer(() => deps.handOver(version));
      return 'accepted';
    },
    status(): TakeOverStatus {
      return { installed: newest, handingOver, failure };
    },
    /**
     * A newer worker is starting to take over: hook events go to the spool for it (mapped,
     * redacted and stored by the new version's code) instead of being stored by this one.
     */
    holding(): boolean {
      return starting !== null || handingOver !== null;
    },
  };
}

export type TakeOver = ReturnType<typeof createTakeOver>;
