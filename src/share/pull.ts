import type pg from 'pg';
import { applyForget, planForget, type ForgetPlan } from '../memory/index.js';
import type { RedactionCounts } from '../redaction/index.js';
import type { Store } from '../store/index.js';
import { checkIncoming, cleanLabel } from './incoming-record.js';
import { pullBatch, type Cursor, type IncomingRow } from './remote-log.js';
import type { ShareLedger, ShareProjectState } from './share-ledger.js';

/**
 * Brings a project's new rows from the shared log into the local store, in the log's order:
 * another member's record becomes local memory marked with its origin (the member's label),
 * under this machine's path of the project; a withdrawal removes the record it names, when the
 * same role pushed both; this machine's own rows are passed over. Each chunk is one short local
 * transaction that also moves the cursor, so a crash never stores a record twice nor skips one,
 * and sessions writing meanwhile wait at most one chunk. The ledger of pulled keys outlives a
 * local forget: forgotten memory is never pulled again.
 */
export interface PullOutcome {
  pulled: number;
  /** Records removed here because their owner withdrew them. */
  removedByOwner: number;
  /** Rows refused as not being records (counted, never stored). */
  refused: number;
  /** Delivery lag of each record stored (ms, on the server's clock). */
  lagsMs: number[];
}

export interface PullDeps {
  store: Store;
  ledger: ShareLedger;
  client: pg.Client;
  machine: string;
  redactions: RedactionCounts;
  nowMs: () => number;
  /** Rows per read from the database (default 500). */
  batch?: number;
  /** Rows per local transaction (default 100). */
  chunk?: number;
  onProgress?: (pulled: number) => void;
  /** Lets other work run between chunks (the worker's hooks); default a macrotask turn. */
  yieldNow?: () => Promise<void>;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function pullNew(deps: PullDeps, state: ShareProjectState): Promise<PullOutcome> {
  const batch = deps.batch ?? 500;
  const chunkSize = deps.chunk ?? 100;
  const outcome: PullOutcome = { pulled: 0, removedByOwner: 0, refused: 0, lagsMs: [] };
  const apply = createApplier(deps, state);
  let cursor: Cursor = state.cursor;
  for (;;) {
    const rows = await pullBatch(deps.client, state.remoteProject, cursor, batch);
    for (let i = 0; i < rows.length; i += chunkSize) {
      const chunk = rows.slice(i, i + chunkSize);
      const result = await apply(chunk);
      outcome.pulled += result.pulled;
      outcome.removedByOwner += result.removedByOwner;
      outcome.refused += result.refused;
      outcome.lagsMs.push(...result.lagsMs);
      cursor = { xid: chunk.at(-1)!.xid, seq: chunk.at(-1)!.seq };
      deps.onProgress?.(outcome.pulled);
      await (deps.yieldNow ?? turn)();
    }
    if (rows.length < batch) return outcome;
  }
}

/**
 * A withdrawal's index merge runs in steps: between them the event loop (the worker's hooks) and
 * any other writer get their turn, as long as the step held the lock (store/write-pacing.ts).
 */
const restAsLongAsHeld = (heldMs: number) => new Promise<void>((resume) => setTimeout(resume, Math.max(1, Math.ceil(heldMs))));

function createApplier(deps: PullDeps, state: ShareProjectState) {
  const { db } = deps.store;
  const known = db.prepare('SELECT local_id, owner, kind FROM share_pulled WHERE uid = ?');
  const remember = db.prepare(
    'INSERT INTO share_pulled (uid, project, kind, local_id, owner, pulled_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (uid) DO NOTHING',
  );
  const ensureSession = db.prepare(
    "INSERT INTO sessions (session_id, project, status, created_at, updated_at, ended_at, checkout) VALUES (?, ?, 'ended', ?, ?, ?, ?) ON CONFLICT (session_id) DO NOTHING",
  );

  /** Withdrawals first, each in forget's own transaction; a repeat finds nothing left to remove. */
  const withdraw = async (rows: IncomingRow[]): Promise<number> => {
    const observations: number[] = [];
    const summaries: number[] = [];
    for (const row of rows) {
      const entry = known.get(row.uid) as { local_id: number | null; owner: string; kind: string } | undefined;
      // Only the role that pushed a record can withdraw it here too (the database enforces the same).
      if (!entry || entry.local_id === null || entry.owner !== row.owner) continue;
      (entry.kind === 'observation' ? observations : summaries).push(entry.local_id);
    }
    if (observations.length + summaries.length === 0) return 0;
    const plan: ForgetPlan = planForget(db, { observationIds: observations });
    for (const id of summaries) plan.items.push({ kind: 'summary', id, title: '', session_id: '', project: state.project, created_at: '' });
    const result = await applyForget(db, plan, { elapsedMs: () => performance.now(), rest: restAsLongAsHeld });
    return result.observations + result.summaries;
  };

  const store = db.transaction((rows: IncomingRow[], last: IncomingRow, out: PullOutcome) => {
    const nowMs = deps.nowMs();
    for (const row of rows) {
      if (known.get(row.uid) !== undefined) continue;
      const checked = checkIncoming(row.kind, row.body, deps.redactions);
      if (!checked.ok) {
        out.refused += 1;
        continue;
      }
      const origin = cleanLabel(row.label);
      const sessionId = `share:${row.session.replace(/[^0-9a-z]/gi, '').slice(0, 64) || 'unknown'}`;
      const createdAt = Number.isFinite(row.createdAtMs) ? row.createdAtMs : nowMs;
      ensureSession.run(sessionId, state.project, createdAt, nowMs, createdAt, state.project);
      const provenance = {
        sessionId,
        project: state.project,
        checkout: state.project,
        origin,
        sourceMessageIds: [],
        provider: 'share',
        model: null,
        promptVersion: 'share',
        createdAt,
      };
      const localId =
        checked.kind === 'observation'
          ? deps.store.observations.insert(checked.record, { ...provenance, discoveryTokens: null, agent: null })
          : deps.store.summaries.insert(checked.record, provenance);
      remember.run(row.uid, state.project, checked.kind, localId, row.owner, nowMs);
      out.pulled += 1;
      out.lagsMs.push(row.lagMs);
    }
    deps.ledger.setCursor(state.project, { xid: last.xid, seq: last.seq });
    deps.ledger.count(state.project, { pulled: out.pulled, refused: out.refused, removedByOwner: out.removedByOwner });
  });

  return async (rows: IncomingRow[]): Promise<PullOutcome> => {
    const theirs = rows.filter((r) => r.machine !== deps.machine);
    const out: PullOutcome = { pulled: 0, refused: 0, lagsMs: [], removedByOwner: await withdraw(theirs.filter((r) => r.kind === 'withdrawn')) };
    store.immediate(
      theirs.filter((r) => r.kind !== 'withdrawn'),
      rows.at(-1)!,
      out,
    );
    return out;
  };
}
