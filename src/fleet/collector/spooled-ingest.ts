import type { Logger } from '../../log.js';
import type { CollectedEvent } from './collected-event.js';
import type { CollectorSpool } from './collector-spool.js';
import type { FleetStore } from './fleet-store.js';

export interface SpooledIngestConfig {
  /** Events per insert: ClickHouse wants few, large inserts (at least thousands of rows). */
  batchEvents: number;
  /** How long accepted events wait for more before they are inserted. */
  intervalMs: number;
  /** Retry delays after a failed insert: doubling from the first, capped at the second. */
  retryMs: readonly [number, number];
}

export interface SpooledIngestDeps {
  spool: CollectorSpool;
  store: FleetStore;
  log: Logger;
  setTimer: (fn: () => void, ms: number) => { cancel(): void };
}

export interface SpooledIngest {
  /** Keeps the events in the spool (before the HTTP reply); the store gets them at the next flush. */
  accept(events: readonly CollectedEvent[]): number;
  /** Inserts everything spooled now; resolves when the spool is empty or an insert failed (it is retried later). */
  flush(): Promise<void>;
  pendingEvents(): number;
  /** The last insert failure, while the store keeps failing (null once an insert succeeds). */
  failing(): string | null;
  /** Stops the loop after one last flush; what the store did not take stays in the spool for the next run. */
  close(): Promise<void>;
}

export const DEFAULT_SPOOLED_INGEST: SpooledIngestConfig = { batchEvents: 50_000, intervalMs: 1_000, retryMs: [1_000, 30_000] };

/**
 * Accepted events go to the spool first and reach the store in batches: a store that is down,
 * refuses the credentials or loses its database loses nothing — the events wait, the failure is
 * logged once per change, and inserts are retried with backoff. A batch inserted twice (a crash
 * before its files were removed) counts once: the store keeps one row per uuid.
 */
export function startSpooledIngest(config: SpooledIngestConfig, deps: SpooledIngestDeps): SpooledIngest {
  let timer: { cancel(): void } | null = null;
  let running: Promise<void> | null = null;
  let failure: string | null = null;
  let retryMs = config.retryMs[0];
  let closed = false;

  const schedule = (ms: number) => {
    if (closed || timer !== null) return;
    timer = deps.setTimer(() => {
      timer = null;
      void flush();
    }, ms);
  };

  const flushOnce = async (): Promise<void> => {
    while (deps.spool.pendingEvents() > 0) {
      const { files, events } = deps.spool.take(config.batchEvents);
      if (files.length === 0) return;
      try {
        const outcome = await deps.store.insert(events);
        deps.spool.remove(files);
        if (failure !== null) deps.log.info('collector store answers again; spooled events inserted', { events: events.length, where: deps.store.where });
        failure = null;
        retryMs = config.retryMs[0];
        if (outcome.duplicates > 0) deps.log.debug('collector skipped events the store already held', { duplicates: outcome.duplicates });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (message !== failure)
          deps.log.warn('collector store insert failed; events stay in the spool', { error: message, spooled: deps.spool.pendingEvents(), retry_ms: retryMs });
        failure = message;
        schedule(retryMs);
        retryMs = Math.min(config.retryMs[1], retryMs * 2);
        return;
      }
    }
  };

  const flush = (): Promise<void> => {
    running ??= flushOnce().finally(() => {
      running = null;
    });
    return running;
  };

  if (deps.spool.pendingEvents() > 0) schedule(0);
  return {
    accept(events) {
      deps.spool.append(events);
      if (failure !== null) return events.length;
      if (deps.spool.pendingEvents() >= config.batchEvents) void flush();
      else schedule(config.intervalMs);
      return events.length;
    },
    flush,
    pendingEvents: () => deps.spool.pendingEvents(),
    failing: () => failure,
    async close() {
      closed = true;
      timer?.cancel();
      timer = null;
      await running;
      if (failure === null) await flushOnce();
    },
  };
}
