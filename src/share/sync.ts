import type { RedactionCounts } from '../redaction/index.js';
import type { Store } from '../store/index.js';
import { pullNew, type PullOutcome } from './pull.js';
import { pushPending, type PushOutcome } from './push.js';
import { countAfter } from './remote-log.js';
import type { OpenShareDatabase } from './share-database.js';
import type { ShareLedger, ShareProjectState } from './share-ledger.js';

/**
 * One project's sync on an open database: its queue pushed, then the log's new rows pulled. The
 * worker's loop and `memtrace share sync` both run it; two running at once (a sync while the
 * worker works) cost double reads, never a duplicate: keys are unique in the database, and the
 * pulled-keys ledger is checked inside each local transaction.
 */
export interface SyncProgress {
  /** Pushed so far, of the queue's length when the push started. */
  push?(done: number, total: number): void;
  /** Pulled so far, of the rows the log held after the cursor when the pull started. */
  pull?(done: number, total: number): void;
}

export interface SyncDeps {
  store: Store;
  ledger: ShareLedger;
  database: OpenShareDatabase;
  machine: string;
  nowMs: () => number;
  progress?: SyncProgress;
  pushBatch?: number;
  pullBatch?: number;
  pullChunk?: number;
}

export interface SyncOutcome extends PushOutcome, PullOutcome {
  /** Still queued after the push (written meanwhile). */
  pending: number;
  /** Secrets redacted on the way out or in (counts only). */
  redactions: RedactionCounts;
}

export async function syncProject(
  deps: SyncDeps,
  given: ShareProjectState,
  sides: { push: boolean; pull: boolean } = { push: true, pull: true },
): Promise<SyncOutcome> {
  const { ledger, database } = deps;
  const client = database.connection.client;
  ledger.adoptDatabase(given.project, database.schema.databaseId);
  const state = ledger.get(given.project) ?? given;
  const redactions: RedactionCounts = {};
  let pushed: PushOutcome = { pushed: 0, withdrawn: 0 };
  if (sides.push && state.pending > 0) {
    const total = state.pending;
    deps.progress?.push?.(0, total);
    pushed = await pushPending(
      { store: deps.store, ledger, client, machine: deps.machine, redactions, onProgress: (done) => deps.progress?.push?.(done, total) },
      { ...state, databaseId: database.schema.databaseId },
      deps.pushBatch ?? 200,
    );
  }
  let pulled: PullOutcome = { pulled: 0, removedByOwner: 0, refused: 0, lagsMs: [] };
  if (sides.pull) {
    const fresh = ledger.get(state.project) ?? state;
    const total = deps.progress?.pull ? await countAfter(client, fresh.remoteProject, fresh.cursor) : 0;
    deps.progress?.pull?.(0, total);
    pulled = await pullNew(
      {
        store: deps.store,
        ledger,
        client,
        machine: deps.machine,
        redactions,
        nowMs: deps.nowMs,
        ...(deps.pullBatch ? { batch: deps.pullBatch } : {}),
        ...(deps.pullChunk ? { chunk: deps.pullChunk } : {}),
        onProgress: (done) => deps.progress?.pull?.(done, Math.max(total, done)),
      },
      fresh,
    );
  }
  ledger.succeeded(state.project, deps.nowMs());
  return { ...pushed, ...pulled, pending: ledger.get(state.project)?.pending ?? 0, redactions };
}
