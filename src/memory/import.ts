import { NO_REST, type Rest, type Store } from '../store/index.js';
import { checkLine } from './portable-record.js';

/**
 * Reads a jsonl export back into a store (docs/interfaces.md#memtrace-export-and-import). Every line is checked before anything of
 * it is stored: a malformed line or an unknown type stores nothing and is counted as invalid; a
 * line whose id is already taken is skipped; the others are stored with their ids and created_at
 * as given. Every text passes through `sanitize` before it touches the store — secret redaction
 * plugs in there.
 */
export interface ImportDeps {
  /** Applied to every free-text value of a line before it is stored; identity by default. */
  sanitize?: (text: string) => string;
  nowMs: number;
  /** A monotonic clock (ms) that bounds each transaction; performance.now by default. */
  elapsedMs?: () => number;
  /** Between transactions (a running worker's turn at the lock); none by default. */
  rest?: Rest;
}

export interface ImportProblem {
  line: number;
  reason: string;
}

export interface ImportReport {
  imported: number;
  skipped: number;
  invalid: number;
  /** The first invalid lines and why (at most MAX_PROBLEMS). */
  problems: ImportProblem[];
}

const MAX_PROBLEMS = 20;
/** A line longer than this is refused unread (an export line is far smaller). */
const MAX_LINE_BYTES = 8 * 1024 * 1024;
/** Lines read ahead at most; they are stored in transactions of at most TRANSACTION_MS each. */
const BATCH = 500;
/**
 * How long one transaction may hold the store's write lock: a running worker's hooks wait for it
 * (docs/memory.md#export-and-import). A failure midway keeps what was committed before it.
 */
export const TRANSACTION_MS = 20;

const IMPORT_PROVENANCE = { sourceMessageIds: [] as number[], provider: 'import', model: null, promptVersion: 'import' };

export async function importJsonl(store: Store, lines: AsyncIterable<string>, deps: ImportDeps): Promise<ImportReport> {
  const sanitize = deps.sanitize ?? ((text: string) => text);
  const clean = (items: readonly string[]) => items.map(sanitize);
  const report: ImportReport = { imported: 0, skipped: 0, invalid: 0, problems: [] };
  const invalid = (line: number, reason: string) => {
    report.invalid += 1;
    if (report.problems.length < MAX_PROBLEMS) report.problems.push({ line, reason });
  };
  const { db } = store;
  const observationExists = db.prepare('SELECT 1 FROM observations WHERE id = ?');
  const summaryExists = db.prepare('SELECT 1 FROM summaries WHERE id = ?');
  // An imported session is a finished one; a session already known keeps its own details.
  const ensureSession = db.prepare(
    "INSERT INTO sessions (session_id, project, status, created_at, updated_at, ended_at) VALUES (?, ?, 'ended', ?, ?, ?) ON CONFLICT (session_id) DO NOTHING",
  );

  /** Stores one line (inside the batch's transaction) and says what became of it. */
  const storeLine = (text: string): 'imported' | 'skipped' | { invalid: string } => {
    const checked = checkLine(text);
    if (!checked.ok) return { invalid: checked.reason };
    const { line, createdAtMs } = checked;
    if (line.id !== null && (checked.kind === 'observation' ? observationExists : summaryExists).get(line.id) !== undefined) return 'skipped';
    // A line names its checkout only when it was a worktree; otherwise the project's path is it.
    const checkout = line.checkout ?? (line.project?.startsWith('/') ? line.project : null);
    // Another member's record stays theirs: marked with its origin, it is never pushed as this machine's.
    const provenance = { ...IMPORT_PROVENANCE, sessionId: line.session_id, project: line.project, createdAt: createdAtMs, checkout, origin: line.origin };
    if (checked.kind === 'observation') {
      const o = checked.line;
      store.observations.insert(
        {
          type: o.type,
          title: sanitize(o.title),
          subtitle: sanitize(o.subtitle),
          narrative: sanitize(o.narrative),
          facts: clean(o.facts),
          concepts: clean(o.concepts),
          files_read: clean(o.files_read),
          files_modified: clean(o.files_modified),
        },
        { ...provenance, discoveryTokens: null },
        [],
        o.id,
      );
    } else {
      const s = checked.line;
      store.summaries.insert(
        {
          request: sanitize(s.request),
          investigated: sanitize(s.investigated),
          learned: sanitize(s.learned),
          completed: sanitize(s.completed),
          next_steps: sanitize(s.next_steps),
          notes: sanitize(s.notes),
        },
        provenance,
        [],
        s.id,
      );
    }
    ensureSession.run(line.session_id, line.project, createdAtMs, deps.nowMs, createdAtMs);
    return 'imported';
  };
  const elapsed = deps.elapsedMs ?? (() => performance.now());
  // From `from`, as many lines as fit in TRANSACTION_MS (at least one), the commit included: the
  // commit writes the search index's new segment and merges older ones (a fifth of the hold at
  // 100k), and a line can take several ms, so a transaction that took lines until 20 ms had passed
  // held the lock 68 ms at p95. Each transaction leaves room for the last commit and the last line.
  // Counts are taken only once the transaction committed, so a failed one is not reported as stored.
  const cost = { commitMs: 0, lineMs: 0 };
  let bodyMs = 0;
  const storeSome = db.transaction((batch: Array<[number, string]>, from: number) => {
    const started = elapsed();
    // At least half the time for lines: each commit writes a search-index segment, and more, smaller
    // segments cost more merging, so shorter transactions would also make the whole import slower.
    const budget = Math.max(TRANSACTION_MS / 2, TRANSACTION_MS - cost.commitMs - cost.lineMs);
    const outcomes: Array<readonly [number, ReturnType<typeof storeLine>]> = [];
    for (let i = from; i < batch.length && (i === from || elapsed() - started < budget); i += 1) outcomes.push([batch[i]![0], storeLine(batch[i]![1])]);
    bodyMs = elapsed() - started;
    return outcomes;
  });
  const rest = deps.rest ?? NO_REST;
  const commit = async (batch: Array<[number, string]>) => {
    for (let from = 0; from < batch.length; ) {
      const started = elapsed();
      const outcomes = storeSome.immediate(batch, from);
      const heldMs = elapsed() - started;
      // Moving averages: one slow commit or line shortens the next transactions a little, not to one line each.
      cost.commitMs = 0.8 * cost.commitMs + 0.2 * Math.max(0, heldMs - bodyMs);
      cost.lineMs = 0.8 * cost.lineMs + 0.2 * (bodyMs / outcomes.length);
      await rest(heldMs);
      from += outcomes.length;
      for (const [lineNo, outcome] of outcomes) {
        if (outcome === 'imported') report.imported += 1;
        else if (outcome === 'skipped') report.skipped += 1;
        else invalid(lineNo, outcome.invalid);
      }
    }
  };

  let batch: Array<[number, string]> = [];
  let lineNo = 0;
  for await (const text of lines) {
    lineNo += 1;
    if (text.trim() === '') continue;
    if (Buffer.byteLength(text) > MAX_LINE_BYTES) {
      invalid(lineNo, `longer than ${MAX_LINE_BYTES} bytes`);
      continue;
    }
    batch.push([lineNo, text]);
    if (batch.length >= BATCH) {
      await commit(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await commit(batch);
  return report;
}
