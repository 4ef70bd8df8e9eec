import type Database from 'better-sqlite3';
import { SEARCH_RECENT_TABLE, SEARCH_TABLE, type Rest } from '../store/index.js';
import { buildSearchQuery } from './query.js';
import { EmptyQueryError, MAX_SEARCH_LIMIT, normalizeProject } from './search.js';

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
    const matched = selector.match ? matchAll(db, selector.match, where, params) : null;
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

/**
 * Every item holding all the words of `text` within the selector's other filters (project,
 * session, before), unranked: forget takes them all. More than MAX_SEARCH_LIMIT is refused, counted
 * after every filter (it was counted before --session and --before, which the refusal suggests).
 */
function matchAll(db: Database.Database, text: string, where: string, params: Record<string, unknown>): Set<string> {
  const query = buildSearchQuery(text, { every: true });
  if (!query.ok) throw new EmptyQueryError(query.reason);
  const rows = (kind: ForgetItem['kind'], table: string, rowid: string) =>
    (
      db
        .prepare(
          `SELECT t.id FROM ${SEARCH_TABLE} f JOIN ${table} t ON t.id = ${rowid} WHERE ${SEARCH_TABLE} MATCH @match AND ${rowid} > 0 AND ${where} LIMIT @limit`,
        )
        .pluck()
        .all({ ...params, match: query.match, limit: MAX_SEARCH_LIMIT }) as number[]
    ).map((id) => `${kind}:${id}`);
  const matched = new Set([...rows('observation', 'observations', 'f.rowid'), ...rows('summary', 'summaries', '-f.rowid')]);
  if (matched.size >= MAX_SEARCH_LIMIT)
    throw new ForgetRefusedError(`--match '${text}' matches ${MAX_SEARCH_LIMIT} or more items; narrow it (add --project, --session or --before)`);
  return matched;
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

/** Pages of index one merge step writes: a step is a short transaction (a running worker's hooks wait for none longer). 256 held the lock 15–116 ms at 100k observations; 64, under 25 ms. */
const MERGE_PAGES = 64;
/** How long one removal transaction keeps taking items (at least one): forgetting 380 items in one held the lock 300 ms. */
const FORGET_STEP_MS = 15;

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

/**
 * Runs `remove` on each id, as many as fit in FORGET_STEP_MS per transaction, resting between
 * transactions. A forget stopped midway has removed whole items only; running it again finishes it.
 */
async function inSteps(db: Database.Database, ids: readonly number[], remove: (id: number) => void, deps: ForgetDeps): Promise<void> {
  const some = db.transaction((from: number): number => {
    const started = deps.elapsedMs();
    let at = from;
    do remove(ids[at++]!);
    while (at < ids.length && deps.elapsedMs() - started < FORGET_STEP_MS);
    return at;
  });
  for (let at = 0; at < ids.length; ) {
    const started = deps.elapsedMs();
    at = some.immediate(at);
    await deps.rest(deps.elapsedMs() - started);
  }
}

/**
 * Removes what the plan names in short transactions, then merges the index and truncates the WAL.
 * Derived history goes first, newest (the summaries condensed from others) first, so a forget
 * stopped midway leaves only what planning the same forget again finds from the observations left.
 */
export async function applyForget(db: Database.Database, plan: ForgetPlan, deps: ForgetDeps): Promise<ForgetResult> {
  const idsOf = (kind: ForgetItem['kind']) => plan.items.filter((i) => i.kind === kind).map((i) => i.id);
  const inList = 'IN (SELECT value FROM json_each(?))';
  db.pragma('secure_delete = ON');
  const result = { observations: 0, summaries: 0, compactedSummaries: 0, rawEvents: 0, sessions: 0 };
  // Compacted history: children of a removed summary are on top again, to be condensed anew, or
  // removed after it (step 1300 indexes condensed_into).
  const uncondense = db.prepare('UPDATE memory_summaries SET condensed_into = NULL WHERE condensed_into = @id');
  // One statement per column, each through its own index (one OR of the three read the whole table).
  const sourcesOfSummary = db.prepare('DELETE FROM summary_sources WHERE summary_id = ?');
  const asSourceSummary = db.prepare('DELETE FROM summary_sources WHERE source_summary_id = ?');
  const asSourceObservation = db.prepare('DELETE FROM summary_sources WHERE observation_id = ?');
  const compactedSummary = db.prepare('DELETE FROM memory_summaries WHERE id = ?');
  await inSteps(
    db,
    [...plan.compactedSummaries].sort((a, b) => b - a),
    (id) => {
      uncondense.run({ id });
      sourcesOfSummary.run(id);
      asSourceSummary.run(id);
      result.compactedSummaries += compactedSummary.run(id).changes;
    },
    deps,
  );
  // The raw events each item came from: queue rows still waiting, and the tool events kept for provenance.
  const queueRows = db.prepare(`DELETE FROM queue WHERE id ${inList}`);
  const toolEvents = db.prepare(`DELETE FROM tool_events WHERE queue_id ${inList}`);
  const removeRaw = (sources: string | undefined) => {
    if (sources === undefined) return;
    result.rawEvents += queueRows.run(sources).changes + toolEvents.run(sources).changes;
  };
  const observationSources = db.prepare('SELECT source_message_ids FROM observations WHERE id = ?').pluck();
  const observation = db.prepare('DELETE FROM observations WHERE id = ?');
  await inSteps(
    db,
    idsOf('observation'),
    (id) => {
      removeRaw(observationSources.get(id) as string | undefined);
      asSourceObservation.run(id);
      result.observations += observation.run(id).changes;
    },
    deps,
  );
  const summarySources = db.prepare('SELECT source_message_ids FROM summaries WHERE id = ?').pluck();
  const summary = db.prepare('DELETE FROM summaries WHERE id = ?');
  await inSteps(
    db,
    idsOf('summary'),
    (id) => {
      removeRaw(summarySources.get(id) as string | undefined);
      result.summaries += summary.run(id).changes;
    },
    deps,
  );
  // A whole session: what is left of it (pending events, prompts, written files, its record).
  const sessions = JSON.stringify(plan.sessions);
  if (plan.sessions.length > 0) {
    const started = deps.elapsedMs();
    db.transaction(() => {
      result.rawEvents += db.prepare(`DELETE FROM queue WHERE session_id ${inList}`).run(sessions).changes;
      result.rawEvents += db.prepare(`DELETE FROM tool_events WHERE session_id ${inList}`).run(sessions).changes;
      db.prepare(`DELETE FROM session_files_written WHERE session_id ${inList}`).run(sessions);
      db.prepare(`DELETE FROM session_prompts WHERE session_id ${inList}`).run(sessions);
      result.sessions = db.prepare(`DELETE FROM sessions WHERE session_id ${inList}`).run(sessions).changes;
    }).immediate();
    await deps.rest(deps.elapsedMs() - started);
  }
  // Deleted index entries can survive in older index segments until they merge: merge them all now.
  for (const table of [SEARCH_TABLE, SEARCH_RECENT_TABLE]) await mergeWhole(db, table, deps);
  // The merge wrote the index anew into the WAL. A truncating checkpoint holds the write lock while
  // it copies: copy it first with a passive one (which never blocks writers), so little is left.
  db.pragma('wal_checkpoint(PASSIVE)');
  const checkpoint = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
  return { ...result, checkpointed: checkpoint[0]?.busy === 0 };
}
