import { backoffDelayMs } from '../backoff.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { nodeTimers, type Timers } from '../timers.js';
import type { EventSink } from './posthog-sink.js';
import type { TelemetryStore } from './telemetry-store.js';

export type FlushResult =
  | { status: 'sent'; events: number }
  | { status: 'failed'; error: string; pending: number; retry_at: string }
  | { status: 'local_only' | 'nothing_due' | 'notice_pending' };

const BATCH = 100;
const INTERVAL_MS = 30_000;

/**
 * One backoff for the sink, not one per batch: while it is down, a probe batch goes every few
 * seconds (short enough that a brief outage is over within seconds of recovery), stretching to
 * minutes once the outage is long; the first success drains the whole backlog at once.
 */
const SINK_BACKOFF = { baseMs: 2_000, capMs: 20_000, longOutageAfterMs: 15 * 60_000, longCapMs: 300_000 } as const;

export function sinkRetryDelayMs(failures: number, outageMs: number): number {
  const capMs = outageMs >= SINK_BACKOFF.longOutageAfterMs ? SINK_BACKOFF.longCapMs : SINK_BACKOFF.capMs;
  return backoffDelayMs({ baseMs: SINK_BACKOFF.baseMs, capMs }, failures - 1);
}

export interface SinkState {
  state: 'up' | 'down' | 'local_only';
  failures: number;
  retry_at: string | null;
}

/**
 * The background sender: outbox rows go to the sink in bounded batches and are deleted only
 * after the sink confirmed them. It never throws and never keeps the process alive.
 */
export function createDelivery(deps: {
  store: TelemetryStore;
  sink: EventSink | null;
  installId: string;
  clock: Clock;
  log: Logger;
  timers?: Timers;
  noticeRecorded: () => boolean;
}) {
  const { store, sink, clock, log } = deps;
  const timers = deps.timers ?? nodeTimers;
  let timer: { cancel(): void } | null = null;
  let running: Promise<FlushResult> | null = null;
  let failures = 0;
  let outageSinceMs: number | null = null;
  let retryAtMs: number | null = null;
  let stopped = false;

  async function sendAll(): Promise<FlushResult> {
    let sent = 0;
    try {
      for (;;) {
        const batch = store.due(Number.MAX_SAFE_INTEGER, BATCH);
        if (batch.length === 0) break;
        const result = await sink!.send(deps.installId, batch);
        const nowMs = clock.now();
        if (!result.ok) {
          failures += 1;
          outageSinceMs ??= nowMs;
          retryAtMs = nowMs + sinkRetryDelayMs(failures, nowMs - outageSinceMs);
          store.markFailed(batch.map((e) => e.uuid));
          record(`failed: ${result.error}`);
          if (failures === 1 || failures % 10 === 0)
            log.warn('telemetry delivery failed; will retry', {
              error: result.error,
              retry_at: new Date(retryAtMs).toISOString(),
              pending: store.outboxDepth(),
            });
          return { status: 'failed', error: result.error, pending: store.outboxDepth(), retry_at: new Date(retryAtMs).toISOString() };
        }
        store.markSent(batch.map((e) => e.uuid));
        sent += batch.length;
        if (failures > 0) log.info('telemetry delivery recovered; draining the backlog', { after_failures: failures });
        failures = 0;
        outageSinceMs = null;
        retryAtMs = null;
      }
    } catch (error) {
      record(`failed: ${String(error)}`);
      return { status: 'failed', error: String(error), pending: store.outboxDepth(), retry_at: new Date(clock.now() + SINK_BACKOFF.baseMs).toISOString() };
    }
    if (sent === 0) return { status: 'nothing_due' };
    record(`ok: ${sent} event(s)`);
    return { status: 'sent', events: sent };
  }

  /** Sends everything now (also during a backoff: `telemetry flush` is the user asking). */
  function flushNow(): Promise<FlushResult> {
    if (!sink) return Promise.resolve({ status: 'local_only' });
    if (!deps.noticeRecorded()) return Promise.resolve({ status: 'notice_pending' });
    running ??= sendAll().finally(() => {
      running = null;
    });
    return running;
  }

  function record(result: string): void {
    try {
      store.state.set('last_flush_at', new Date(clock.now()).toISOString());
      store.state.set('last_flush_result', result);
    } catch {
      /* the store may be closing */
    }
  }

  function schedule(ms: number): void {
    if (stopped || !sink) return;
    timer?.cancel();
    timer = timers.setTimeout(() => {
      timer = null;
      flushNow()
        .catch((error) => log.warn('telemetry delivery loop error', { error: String(error) }))
        .finally(() => schedule(retryAtMs !== null ? Math.max(0, retryAtMs - clock.now()) : INTERVAL_MS));
    }, ms);
  }

  return {
    start: () => schedule(1_000),
    /** Something became due: send soon, unless the sink is backing off. */
    nudge: () => {
      if (retryAtMs === null) schedule(250);
    },
    flushNow,
    /** Resolves when no send is running (tests driving time by hand). */
    idle: async () => {
      while (running) await running.catch(() => undefined);
    },
    sinkState(): SinkState {
      if (!sink) return { state: 'local_only', failures: 0, retry_at: null };
      return { state: failures > 0 ? 'down' : 'up', failures, retry_at: retryAtMs === null ? null : new Date(retryAtMs).toISOString() };
    },
    /** Stops the loop and tries to deliver what is due within drainMs. */
    async stop(drainMs: number): Promise<void> {
      stopped = true;
      timer?.cancel();
      timer = null;
      if (!sink) return;
      let expire: { cancel(): void } | null = null;
      await Promise.race([
        flushNow().catch(() => undefined),
        new Promise<void>((resolve) => {
          expire = nodeTimers.setTimeout(resolve, drainMs);
        }),
      ]);
      (expire as { cancel(): void } | null)?.cancel();
    },
  };
}
