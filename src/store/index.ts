import type Database from 'better-sqlite3';
import { openDatabase, recoverClaimed, type OpenOptions } from './database.js';
import { createObservations, type Observations } from './observations.js';
import { createQueue, type Queue } from './queue.js';
import { createSessions, type Sessions } from './sessions.js';
import { createSummaries, type Summaries } from './summaries.js';

export interface Store {
  db: Database.Database;
  queue: Queue;
  sessions: Sessions;
  observations: Observations;
  summaries: Summaries;
  /** Messages a previous process left claimed, now pending again. */
  recoveredClaimed: number;
  close(): void;
}

export interface OpenStoreOptions extends OpenOptions {
  /**
   * Return claimed messages to pending (default). Only the worker may: another process opening
   * the file while a worker runs (`memtrace mine`) would release messages that are in flight.
   */
  recoverClaimed?: boolean;
}

export function openStore(file: string, options: OpenStoreOptions = {}): Store {
  const db = openDatabase(file, options);
  const recovered = options.recoverClaimed === false ? 0 : recoverClaimed(db);
  return {
    db,
    queue: createQueue(db),
    sessions: createSessions(db),
    observations: createObservations(db),
    summaries: createSummaries(db),
    recoveredClaimed: recovered,
    close: () => db.close(),
  };
}

export { openDatabase, recoverClaimed } from './database.js';
export { runMigrations, checkSchema, StoreTooNewError, type Migration } from './migrate.js';
export { MIGRATIONS } from './migrations/index.js';
export type { QueueMessage, MessageKind, EnqueueInput } from './queue.js';
export type { SessionRow } from './sessions.js';
export type { StoredObservation, Provenance } from './observations.js';
export { toStoredObservation } from './observations.js';
export type { StoredSummary } from './summaries.js';
export { createMinedTranscripts, type MinedTranscripts, type TranscriptFileState, type SessionMiningState } from './mined-transcripts.js';
