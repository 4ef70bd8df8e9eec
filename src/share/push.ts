import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { RedactionCounts } from '../redaction/index.js';
import type { Store, StoredObservation, StoredSummary } from '../store/index.js';
import { crossingObservation, crossingRoots, crossingSummary } from './crossing.js';
import { pushBatch, type OutgoingRecord } from './remote-log.js';
import type { OutboxRow, ShareLedger, ShareProjectState } from './share-ledger.js';

/**
 * Drains a project's push queue into the shared log, oldest first, one database transaction per
 * batch. A batch is confirmed locally only after the database committed it; a failure leaves it
 * queued, and its retry stores nothing twice (each record's key was drawn when it was queued).
 */
export interface PushOutcome {
  pushed: number;
  withdrawn: number;
}

export interface PushDeps {
  store: Store;
  ledger: ShareLedger;
  client: pg.Client;
  machine: string;
  /** Secrets caught on the way out (counts only). */
  redactions: RedactionCounts;
  onProgress?: (done: number) => void;
}

/** A session's key in the database: stable per machine and session, and saying nothing of either. */
function sessionKey(machine: string, sessionId: string): string {
  return createHash('sha256').update(`${machine}\0${sessionId}`).digest('hex').slice(0, 32);
}

function outgoing(deps: PushDeps, state: ShareProjectState, row: OutboxRow): OutgoingRecord | null {
  if (row.localId === null) return null;
  const stored = row.kind === 'observation' ? deps.store.observations.get(row.localId) : deps.store.summaries.get(row.localId);
  if (stored === null || stored.origin !== null) return null;
  const roots = crossingRoots(state.project, stored.checkout);
  const { kind: _kind, ...body } =
    row.kind === 'observation'
      ? crossingObservation(stored as StoredObservation, roots, deps.redactions)
      : crossingSummary(stored as StoredSummary, roots, deps.redactions);
  return { uid: row.uid, kind: row.kind, session: sessionKey(deps.machine, stored.sessionId), createdAtMs: stored.createdAt, body: JSON.stringify(body) };
}

export async function pushPending(deps: PushDeps, state: ShareProjectState, batchSize: number): Promise<PushOutcome> {
  const outcome: PushOutcome = { pushed: 0, withdrawn: 0 };
  for (;;) {
    const rows = deps.ledger.nextOutbox(state.project, batchSize);
    if (rows.length === 0) return outcome;
    const records: OutgoingRecord[] = [];
    const withdrawals: string[] = [];
    const sent: OutboxRow[] = [];
    const gone: number[] = [];
    for (const row of rows) {
      if (row.op === 'withdraw') {
        withdrawals.push(row.uid);
        sent.push(row);
        continue;
      }
      const record = outgoing(deps, state, row);
      if (record === null) gone.push(row.seq);
      else {
        records.push(record);
        sent.push(row);
      }
    }
    if (gone.length > 0) deps.ledger.drop(gone);
    if (sent.length > 0) {
      await pushBatch(deps.client, { project: state.remoteProject, machine: deps.machine, label: state.label, records, withdrawals });
      deps.ledger.confirmPushed(state.project, sent, state.databaseId, { pushed: records.length, withdrawn: withdrawals.length });
      outcome.pushed += records.length;
      outcome.withdrawn += withdrawals.length;
      deps.onProgress?.(outcome.pushed + outcome.withdrawn);
    }
    if (rows.length < batchSize) return outcome;
  }
}
