import type Database from 'better-sqlite3';
import { SEARCH_RECENT_TABLE, SEARCH_TABLE, type Rest } from '../store/index.js';
import { createMemorySearch, MAX_SEARCH_LIMIT, normalizeProject } from './search.js';

/**
 * `memtrace forget` (docs/memory.md#forget): removes observations and session summaries from every place
 * memory lives — their tables, the search index, the compacted history built from them (so
 * context injection and exports never see them again), and the raw queued events and tool events
 * they came from. Forgetting a whole session also removes its prompts and its record. The
 * connection runs with `secure_delete`, the index is merged afresh (so no old index page keeps a
 * forgotten word) and the WAL is checkpointed and truncated, so after `applyForget` no byte of the
 * forgotten text is left in the database file or its -wal file.
 */
export interface ForgetSelector {
  /** Observations by id; every one must exist. */
  observationIds: readonly number[];
  sessionId?: string | null;
  project?: string | null;
  /** Items created strictly before this instant (epoch ms). */
  beforeMs?: number | null;
  /** Items holding every word of this text (within the other filters). */
  match?: string | null;
}

export interface ForgetItem {
  kind: 'observation' | 'summary';
  id: number;
  title: string;
  session_id: string;
  project: string | null;
  created_at: string;
}

export interface ForgetPlan {
  items: ForgetItem[];
  /** Sessions removed as a whole (their record, prompts and tool events too). */
  sessions: string[];
  /** Compacted-history summaries built from a forgotten observation. */
  compactedSummaries: number[];
}

export interface ForgetResult {
  observations: number;
  summaries: number;
  compactedSummaries: number;
  rawEvents: number;
  sessions: number;
  /** False when another connection kept the WAL from being truncated (the bytes go at its next checkpoint). */
  checkpointed: boolean;
}

/** A selection forget will not act on; nothing is forgotten. */
export class ForgetRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ForgetRefusedError';
  }
}

/** An observation id that is not in the store. */
class UnknownObservationError extends ForgetRefusedError {
  constructor(readonly ids: number[]) {
    super(`no observation ${ids.join(', ')} in the store`);
    this.name = 'UnknownObservationError';
  }
}

const hasFilter = (s: ForgetSelector) => Boolean(s.sessionId || s.project || s.beforeMs != null || s.match);

/** What would go; changes nothing. Throws UnknownObservationError for a missing id. */
export function planForget(db: Database.Database, selector: ForgetSelector): ForgetPlan {
  const byId = db.prepare('SELECT id, title, session_id, project, created_at FROM observations WHERE id = ?');
  const missing = selector.observationIds.filter((id) => byId.get(id) === undefined);
  if (missing.length > 0) throw new UnknownObservationError(missing);

  const items = new Map<string, ForgetItem>();
  const add = (kind: ForgetItem['kind'], r: { id: number; title: string; session_id: string; project: string | null; created_at: number }) =>
    items.set(`${kind}:${r.id}`, {
      kind,
      id: r.id,
      title: r.title,
      session_id: r.session_id,
      project: r.project,
      created_at: new Date(r.created_at).toISOString(),
    });
  for (const id of selector.observationIds) add('observation', byId.get(id) as Parameters<typeof add>[1]);

  if (hasFilter(selector)) {
    const project = selector.project ? normalizeProject(selector.project) : null;
    const params = { session: selector.sessionId ?? null, project, before: selector.beforeMs ?? null };
    const where = `(@session IS NULL OR session_id = @session) AND (@project IS NULL OR project = @project OR project = @project || '/') AND (@before IS NULL OR created_at < @before)`;
    let matched: Set<string> | null = null;
    if (selector.match) {
      // Every match, not the top ten: search in pages of the largest limit until one comes back short.
      matched = new Set(matchAll(db, selector.match, project).map((h) => `${h.kind}:${h.id}`));
    }
    const keep = (kind: string, id: number) => matched === null || matched.has(`${kind}:${id}`);
    for (const r of db.prepare(`SELECT id, title, session_id, project, created_at FROM observations WHERE ${where} ORDER BY id`).all(params) as Array<
      Parameters<typeof add>[1]
    >) {
      if (keep('observation', r.id)) add('observation', r);
    }
    for (const r of db.prepare(`SELECT id, request AS title, session_id, project, created_at FROM summaries WHERE ${where} ORDER BY id`).all(params) as Array<
      Parameters<typeof add>[1]
    >) {
      if (keep('summary', r.id)) add('summary', r);
    }
  }

  const sorted = [...items.values()].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.kind.localeCompare(b.kind) || a.id - b.id);
  const sessions =
    selector.sessionId &&
    db.prepare('SELECT 1 FROM sessions WHERE session_id = ?').get(selector.sessionId) !== undefined &&
    !selector.match &&
    selector.beforeMs == null
      ? [selector.sessionId]
      : [];
  const observationIds = sorted.filter((i) => i.kind === 'observation').map((i) => i.id);
  return { items: sorted, sessions, compactedSummaries: compactedFrom(db, observationIds) };
}

function matchAll(db: Database.Database, query: string, project: string | null) {
  const search = createMemorySearch(db);
  // A search would rank items holding any of the words; forget takes only those holding all of
  // them. It asks for the most a search gives and refuses to guess past it.
  const hits = search.search(query, { project, limit: MAX_SEARCH_LIMIT, everyWord: true });
  if (hits.length === MAX_SEARCH_LIMIT)
    throw new ForgetRefusedError(`--match '${query}' matches ${MAX_SEARCH_LIMIT} or more items; narrow it (add --project, --session or --before)`);
  return hits;
}

/** Summaries of the compacted history built, directly or through others, from these observations. */
function compactedFrom(db: Database.Database, observationIds: readonly number[]): number[] {
  if (observationIds.length === 0) return [];
  const rows = db
    .prepare(
      `WITH RECURSIVE affected(id) AS (
         SELECT summary_id FROM summary_sources WHERE observation_id IN (SELECT value FROM json_each(?))
         UNION SELECT m.condensed_into FROM memory_summaries m JOIN affected a ON m.id = a.id WHERE m.condensed_into IS NOT NULL)
       SELECT id FROM affected ORDER BY id`,
    )
    .all(JSON.stringify(observationIds)) as Array<{ id: number }>;
  return rows.map((r) => r.id);
}

/** Pages of index one merge step writes: a step is a short transaction (a running worker's hooks wait for none longer). */
const MERGE_PAGES = 256;

/**
 * FTS5's 'optimize' (every segment merged into one), done as FTS5's incremental 'merge' with a
 * negative page count, one short transaction per step: 'optimize' rewrites a million-row index in
 * one write that held the store's lock for minutes. FTS5 says it is done when a step changes
 * fewer than two rows.
 */
async function mergeWhole(db: Database.Database, table: string, deps: ForgetDeps): Promise<void> {
  const merge = db.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('merge', ?)`);
  const total = db.prepare('SELECT total_changes()').pluck();
  for (;;) {
    const before = Number(total.get());
    const started = deps.elapsedMs();
    merge.run(-MERGE_PAGES);
    await deps.rest(deps.elapsedMs() - started);
    if (Number(total.get()) - before < 2) break;
  }
}

/** What forget needs besides the store: a clock for how long each step held the lock, and the rest between steps. */
export interface ForgetDeps {
  elapsedMs(): number;
  rest: Rest;
}

/** Removes what the plan names, in one transaction, then merges the index and truncates the WAL. */
export async function applyForget(db: Database.Database, plan: ForgetPlan, deps: ForgetDeps): Promise<ForgetResult> {
  const ids = (kind: ForgetItem['kind']) => JSON.stringify(plan.items.filter((i) => i.kind === kind).map((i) => i.id));
  const sessions = JSON.stringify(plan.sessions);
  const compacted = JSON.stringify(plan.compactedSummaries);
  const inList = 'IN (SELECT value FROM json_each(?))';
  db.pragma('secure_delete = ON');
  const result = db
    .transaction((): Omit<ForgetResult, 'checkpointed'> => {
      const observations = ids('observation');
      const summaries = ids('summary');
      // The raw events the items came from: queue rows still waiting, and the tool events kept for provenance.
      const sources = JSON.stringify(
        (
          db
            .prepare(`SELECT source_message_ids FROM observations WHERE id ${inList} UNION ALL SELECT source_message_ids FROM summaries WHERE id ${inList}`)
            .all(observations, summaries) as Array<{ source_message_ids: string }>
        ).flatMap((r) => JSON.parse(r.source_message_ids) as number[]),
      );
      let rawEvents = db.prepare(`DELETE FROM queue WHERE id ${inList}`).run(sources).changes;
      rawEvents += db.prepare(`DELETE FROM tool_events WHERE queue_id ${inList}`).run(sources).changes;
      // Compacted history: children of a removed summary are on top again, to be condensed anew.
      db.prepare(`UPDATE memory_summaries SET condensed_into = NULL WHERE condensed_into ${inList} AND id NOT ${inList}`).run(compacted, compacted);
      // One statement per column, each through its own index (one OR of the three read the whole table).
      db.prepare(`DELETE FROM summary_sources WHERE summary_id ${inList}`).run(compacted);
      db.prepare(`DELETE FROM summary_sources WHERE source_summary_id ${inList}`).run(compacted);
      db.prepare(`DELETE FROM summary_sources WHERE observation_id ${inList}`).run(observations);
      const compactedSummaries = db.prepare(`DELETE FROM memory_summaries WHERE id ${inList}`).run(compacted).changes;
      const removedObservations = db.prepare(`DELETE FROM observations WHERE id ${inList}`).run(observations).changes;
      const removedSummaries = db.prepare(`DELETE FROM summaries WHERE id ${inList}`).run(summaries).changes;
      // A whole session: what is left of it (pending events, prompts, written files, its record).
      rawEvents += db.prepare(`DELETE FROM queue WHERE session_id ${inList}`).run(sessions).changes;
      rawEvents += db.prepare(`DELETE FROM tool_events WHERE session_id ${inList}`).run(sessions).changes;
      db.prepare(`DELETE FROM session_files_written WHERE session_id ${inList}`).run(sessions);
      db.prepare(`DELETE FROM session_prompts WHERE session_id ${inList}`).run(sessions);
      const removedSessions = db.prepare(`DELETE FROM sessions WHERE session_id ${inList}`).run(sessions).changes;
      return { observations: removedObservations, summaries: removedSummaries, compactedSummaries, rawEvents, sessions: removedSessions };
    })
    .immediate();
  // Deleted index entries can survive in older index segments until they merge: merge them all now.
  for (const table of [SEARCH_TABLE, SEARCH_RECENT_TABLE]) await mergeWhole(db, table, deps);
  // The merge wrote the index anew into the WAL. A truncating checkpoint holds the write lock while
  // it copies: copy it first with a passive one (which never blocks writers), so little is left.
  db.pragma('wal_checkpoint(PASSIVE)');
  const checkpoint = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
  return { ...result, checkpointed: checkpoint[0]?.busy === 0 };
}
