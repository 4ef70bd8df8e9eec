import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { EventSink } from './posthog-sink.js';
import type { TelemetryStore } from './telemetry-store.js';

export type FlushResult = { status: 'sent'; events: number } | { status: 'failed'; error: string; pending: number } | { status: 'local_only' | 'nothing_due' | 'notice_pending' };

const BATCH = 100;
const INTERVAL_MS = 30_000;
const BACKOFF = { baseMs: 5_000, capMs: 300_000 };

/**
 * The background sender: due outbox rows go to the sink in batches and are deleted only after
 * the sink confirmed them. While the sink is down it backs off; it never throws and never
 * keeps the process alive.
 */
export function createDelivery(deps: { store: TelemetryStore; sink: EventSink | null; installId: string; clock: Clock; log: Logger; noticeRecorded: () => boolean }) {
  const { store, sink, clock, log } = deps;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<FlushResult> | null = null;
  let failures = 0;
  let stopped = false;

  async function flushNow(nowMs: number): Promise<FlushResult> {
    if (!sink) return { status: 'local_only' };
    if (!deps.noticeRecorded()) return { status: 'notice_pending' };
    if (running) return running;
    running = (async (): Promise<FlushResult> => {
      let sent = 0;
      try {
        for (;;) {
          const batch = store.due(nowMs, BATCH);
          if (batch.length === 0) break;
          const result = await sink.send(deps.installId, batch);
          if (!result.ok) {
            failures += 1;
            const retryAt = clock.now() + Math.min(BACKOFF.capMs, BACKOFF.baseMs * 2 ** Math.min(failures - 1, 16));
            store.markFailed(batch.map((e) => e.uuid), retryAt);
            record(`failed: ${result.error}`);
            log.warn('telemetry delivery failed; will retry', { error: result.error, retry_at: new Date(retryAt).toISOString(), pending: store.outboxDepth() });
            return { status: 'failed', error: result.error, pending: store.outboxDepth() };
          }
          store.markSent(batch.map((e) => e.uuid));
          sent += batch.length;
          failures = 0;
        }
      } catch (error) {
        record(`failed: ${String(error)}`);
        return { status: 'failed', error: String(error), pending: store.outboxDepth() };
      }
      if (sent === 0) return { status: 'nothing_due' };
      record(`ok: ${sent} event(s)`);
      return { status: 'sent', events: sent };
    })().finally(() => {
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
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      flushNow(clock.now())
        .catch((error) => log.warn('telemetry delivery loop error', { error: String(error) }))
        .finally(() => schedule(INTERVAL_MS));
    }, ms);
    timer.unref();
  }

  return {
    start: () => schedule(1_000),
    /** Something became due: send soon rather than at the next interval. */
    nudge: () => schedule(250),
    flushNow,
    /** Stops the loop and tries to deliver what is due within drainMs. */
    async stop(drainMs: number): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      if (!sink) return;
      let expire: NodeJS.Timeout | undefined;
      await Promise.race([
        flushNow(clock.now()).catch(() => undefined),
        new Promise<void>((resolve) => {
          expire = setTimeout(resolve, drainMs);
          expire.unref();
        }),
      ]);
      clearTimeout(expire);
    },
  };
}
