import { statfsSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { freeBudgetParkedRows, openDatabase, recoverClaimed, type OpenOptions } from './database.js';
import { createObservations, type Observations } from './observations.js';
import { createQueue, type Queue } from './queue.js';
import { createSessions, type Sessions } from './sessions.js';
import { createSummaries, type Summaries } from './summaries.js';
import { createToolEvents, type ToolEvents } from './tool-events.js';
import { createObserverCalls, type ObserverCalls } from './observer-calls.js';

export interface Store {
  db: Database.Database;
  queue: Queue;
  sessions: Sessions;
  observations: Observations;
  summaries: Summaries;
  toolEvents: ToolEvents;
  /** The observer's spend ledger: every model call, reserved and settled. */
  observerCalls: ObserverCalls;
  /** Messages a previous process left claimed, now pending again. */
  recoveredClaimed: number;
  /** A tiny durable write: proves the disk takes writes again after a fault. */
  probeWrite(nowMs: number): void;
  close(): void;
}

/** Free space the store wants before it calls itself writable again after a full disk. */
const PROBE_HEADROOM_BYTES = 2 * 1024 * 1024;

export interface OpenStoreOptions extends OpenOptions {
  /**
   * Return claimed messages to pending. Only the worker that holds the data dir's lock may:
   * another process opening the file while a worker runs (`memtrace mine`, `telemetry status`)
   * would release messages that are in flight.
   */
  recoverClaimed?: boolean;
}

export function openStore(file: string, options: OpenStoreOptions = {}): Store {
  const db = openDatabase(file, options);
  const recovered = options.recoverClaimed === true ? recoverClaimed(db) : 0;
  const observerCalls = createObserverCalls(db);
  // Same owner rule: a call a crashed worker left reserved may have spent; it counts at its reservation.
  if (options.recoverClaimed === true) {
    observerCalls.recoverReserved();
    freeBudgetParkedRows(db);
  }
  const probe = db.prepare("INSERT INTO store_meta (key, value) VALUES ('last_write_probe', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  return {
    db,
    queue: createQueue(db),
    sessions: createSessions(db),
    observations: createObservations(db),
    summaries: createSummaries(db),
    toolEvents: createToolEvents(db),
    observerCalls,
    recoveredClaimed: recovered,
    probeWrite(nowMs) {
      // A small write can succeed on a nearly full disk; resuming needs room for real turns.
      if (file !== ':memory:') {
        const fs = statfsSync(path.dirname(file));
        if (fs.bavail * fs.bsize < PROBE_HEADROOM_BYTES) throw Object.assign(new Error(`less than ${PROBE_HEADROOM_BYTES} bytes free`), { code: 'ENOSPC' });
      }
      probe.run(String(nowMs));
    },
    close: () => db.close(),
  };
}

export { openDatabase, enableIncrementalVacuum, STORE_BUSY_WAIT_MS } from './database.js';
export { briefTransactions, isStoreBusy, lockWaits, patientWrites } from './brief-transaction.js';
export { sqliteDriver, SqliteDriverError } from './sqlite-driver.js';
export { inspectStore, type StoreInspection } from './inspect.js';
export { createRawData, PRUNE_START, type RawData, type RawRemoved, type StoreSize } from './raw-data.js';
export { runMigrations, StoreTooNewError, type Migration } from './migrate.js';
export { MIGRATIONS } from './migrations/index.js';
export type { PendingHead, QueueMessage } from './queue.js';
export type { CallReservation, CallSettlement, SpendJson, SpendTotals } from './observer-calls.js';
export { NO_SPEND, spendJson } from './observer-calls.js';
export type { SessionRow } from './sessions.js';
export type { StoredObservation } from './observations.js';
export { OBSERVATION_CONTENT_COLUMNS, toParsedObservation, toStoredObservation } from './observations.js';
export { toStoredSummary } from './summaries.js';
export { SEARCH_RECENT_TABLE, SEARCH_TABLE } from './search-index.js';
export { expandedTerms, observationDocument, summaryDocument } from './search-text.js';
export { createSearchStats } from './search-stats.js';
export { NO_REST, restBesideWorker, type Rest } from './write-pacing.js';
export { createSearchScratch, type ScratchDoc } from './search-scratch.js';
export type { StoredSummary } from './summaries.js';
export type { ToolEventRow } from './tool-events.js';
export { createMinedTranscripts, type TranscriptFileState } from './mined-transcripts.js';
