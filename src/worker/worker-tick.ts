import fs from 'node:fs';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';

/** Hooks come in bursts with an agent's turns: a tick this long after the last one is between them. */
const QUIET_BEFORE_PRELOAD_MS = 2_000;

/** What the worker's tick looks after, each a part of the composed worker (runtime.ts). */
export interface WorkerTickDeps {
  /** The store's file: gone with its data dir, the worker stops (`storeRemoved`). */
  dbFile: string;
  tickMs: number;
  clock: Clock;
  log: Logger;
  telemetry: { tick(nowMs: number): void };
  doors: { lastHookMs(): number; mcp: { preload(): void }; replay(): Promise<unknown> };
  follow: { refresh(nowMs: number): void };
  loop: { rescan(): void };
  contextFiles: { refreshChanged(nowMs: number): Promise<unknown> };
  lifecycle: { tick(): void };
  storeRemoved(): void;
}

export interface WorkerTick {
  /** No more ticks. */
  stop(): void;
  /** At shutdown: the context files' pass under way, then one more (it may have begun before the last memory). */
  lastContextRefresh(): Promise<void>;
}

/**
 * The worker's periodic work between hooks: telemetry's flush, the spool's replay, the observer's
 * follow-up and rescan, the context files, the lifecycle's checks, and the MCP SDK's preload once
 * hooks have gone quiet.
 */
export function startWorkerTick(deps: WorkerTickDeps): WorkerTick {
  const { clock, log } = deps;
  let refreshing: Promise<unknown> | null = null;
  const refreshContextFiles = (): Promise<unknown> => {
    refreshing ??= deps.contextFiles
      .refreshChanged(clock.now())
      .catch((error) => log.warn('could not refresh the context files', { error: String(error) }))
      .finally(() => {
        refreshing = null;
      });
    return refreshing;
  };
  const ticker = setInterval(() => {
    // A removed data dir (rm -rf ~/.memtrace, a test's temp dir): the next hook starts a worker on
    // a new one; this one would only write to a deleted file for ever.
    if (deps.dbFile !== ':memory:' && !fs.existsSync(deps.dbFile)) {
      log.warn('the store was removed (its data dir deleted): stopping');
      deps.storeRemoved();
      return;
    }
    deps.telemetry.tick(clock.now());
    // Off the start's path: the first MCP session after a cold start then answers at once. Loading
    // the MCP SDK holds the event loop 140 ms (61–91 of it one module), so not while hooks come.
    if (clock.now() - deps.doors.lastHookMs() >= QUIET_BEFORE_PRELOAD_MS) deps.doors.mcp.preload();
    void deps.doors.replay();
    deps.follow.refresh(clock.now());
    deps.loop.rescan();
    void refreshContextFiles();
    deps.lifecycle.tick();
  }, deps.tickMs);
  ticker.unref();
  return {
    stop: () => clearInterval(ticker),
    async lastContextRefresh() {
      await refreshing;
      await refreshContextFiles();
    },
  };
}
