import type Database from 'better-sqlite3';

export interface OutboxEvent {
  uuid: string;
  event: string;
  properties: Record<string, string | number | boolean>;
  timestamp: number;
  attempts: number;
}

export interface AccumulatorRow<T> {
  key: string;
  event: string;
  state: T | null;
  windowSeq: number;
  openedAt: number;
}

const DEFAULT_OUTBOX_LIMIT = 10_000;

/** Synchronous SQLite access for telemetry, so folds run inside the caller's transaction. */
export function createTelemetryStore(db: Database.Database, options: { outboxLimit?: number } = {}) {
  const outboxLimit = options.outboxLimit ?? DEFAULT_OUTBOX_LIMIT;
  const getAcc = db.prepare('SELECT key, event, state, window_seq, opened_at FROM telemetry_accumulators WHERE key = ?');
  const putAcc = db.prepare(`
    INSERT INTO telemetry_accumulators (key, event, state, window_seq, opened_at, updated_at) VALUES (@key, @event, @state, @windowSeq, @openedAt, @now)
    ON CONFLICT (key) DO UPDATE SET state = excluded.state, window_seq = excluded.window_seq, opened_at = excluded.opened_at, updated_at = excluded.updated_at`);
  const openAccs = db.prepare('SELECT key, event, state, window_seq, opened_at FROM telemetry_accumulators WHERE state IS NOT NULL ORDER BY opened_at');
  const countOpen = db.prepare('SELECT count(*) AS n FROM telemetry_accumulators WHERE state IS NOT NULL');
  const insertOutbox = db.prepare('INSERT OR IGNORE INTO telemetry_outbox (uuid, event, properties, timestamp, created_at) VALUES (?, ?, ?, ?, ?)');
  const outboxDepth = db.prepare('SELECT count(*) AS n FROM telemetry_outbox');
  const dropOldest = db.prepare('DELETE FROM telemetry_outbox WHERE uuid IN (SELECT uuid FROM telemetry_outbox ORDER BY created_at, rowid LIMIT ?)');
  const due = db.prepare(
    'SELECT uuid, event, properties, timestamp, attempts FROM telemetry_outbox WHERE next_attempt_at <= ? ORDER BY created_at, rowid LIMIT ?',
  );
  const all = db.prepare('SELECT uuid, event, properties, timestamp, attempts FROM telemetry_outbox ORDER BY created_at, rowid LIMIT ?');
  const sent = db.prepare('DELETE FROM telemetry_outbox WHERE uuid = ?');
  const failed = db.prepare('UPDATE telemetry_outbox SET attempts = attempts + 1 WHERE uuid = ?');
  const getState = db.prepare('SELECT value FROM telemetry_state WHERE key = ?');
  const putState = db.prepare('INSERT INTO telemetry_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  const toEvent = (r: { uuid: string; event: string; properties: string; timestamp: number; attempts: number }): OutboxEvent => ({
    uuid: r.uuid,
    event: r.event,
    properties: JSON.parse(r.properties) as OutboxEvent['properties'],
    timestamp: r.timestamp,
    attempts: r.attempts,
  });
  const toRow = <T>(r: { key: string; event: string; state: string | null; window_seq: number; opened_at: number }): AccumulatorRow<T> => ({
    key: r.key,
    event: r.event,
    state: r.state === null ? null : (JSON.parse(r.state) as T),
    windowSeq: r.window_seq,
    openedAt: r.opened_at,
  });

  const state = {
    get: (key: string) => (getState.get(key) as { value: string } | undefined)?.value ?? null,
    set: (key: string, value: string) => void putState.run(key, value),
  };

  return {
    db,
    state,
    accumulator<T>(key: string): AccumulatorRow<T> | null {
      const row = getAcc.get(key) as Parameters<typeof toRow>[0] | undefined;
      return row ? toRow<T>(row) : null;
    },
    saveAccumulator<T>(row: AccumulatorRow<T>, nowMs: number): void {
      putAcc.run({
        key: row.key,
        event: row.event,
        state: row.state === null ? null : JSON.stringify(row.state),
        windowSeq: row.windowSeq,
        openedAt: row.openedAt,
        now: nowMs,
      });
    },
    openAccumulators<T>(): AccumulatorRow<T>[] {
      return (openAccs.all() as Array<Parameters<typeof toRow>[0]>).map((r) => toRow<T>(r));
    },
    pendingRollups: () => (countOpen.get() as { n: number }).n,
    /** Adds an event; a full outbox drops its oldest and counts the loss. */
    enqueue(event: Omit<OutboxEvent, 'attempts'>, nowMs: number): void {
      const depth = (outboxDepth.get() as { n: number }).n;
      if (depth >= outboxLimit) {
        const excess = depth - outboxLimit + 1;
        dropOldest.run(excess);
        state.set('outbox_dropped', String(Number(state.get('outbox_dropped') ?? '0') + excess));
      }
      insertOutbox.run(event.uuid, event.event, JSON.stringify(event.properties), event.timestamp, nowMs);
    },
    outboxDepth: () => (outboxDepth.get() as { n: number }).n,
    due: (nowMs: number, limit: number) => (due.all(nowMs, limit) as Array<Parameters<typeof toEvent>[0]>).map(toEvent),
    peek: (limit: number) => (all.all(limit) as Array<Parameters<typeof toEvent>[0]>).map(toEvent),
    markSent: db.transaction((uuids: string[]) => {
      for (const uuid of uuids) sent.run(uuid);
    }),
    /** Counts the attempt; when to retry is the sink's backoff, not the row's. */
    markFailed: db.transaction((uuids: string[]) => {
      for (const uuid of uuids) failed.run(uuid);
    }),
    /** Reads and resets the dropped-events counter, for the next worker_started/stopped. */
    takeDropped(): number {
      const n = Number(state.get('outbox_dropped') ?? '0');
      if (n > 0) state.set('outbox_dropped', '0');
      return n;
    },
  };
}

export type TelemetryStore = ReturnType<typeof createTelemetryStore>;
