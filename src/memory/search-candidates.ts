import type Database from 'better-sqlite3';
import type { ObservationType } from '../vocabulary/observation.js';
import { SEARCH_TABLE } from '../store/index.js';

/** bm25 column weights, in SEARCH_COLUMNS order (title, subtitle, narrative, facts, concepts, files, terms). Tuned on the tune split of bench/memory.bench.ts. */
export const COLUMN_WEIGHTS = [10, 3, 1, 2, 2, 4, 1] as const;

/** A row of the index (an observation's id, a summary's id negated) and its bm25 rank (lower is better). */
export type Ranked = { rowid: number; rank: number };

/** Rowids from `from` to `to`, both included. */
export interface RowidRange {
  from: number;
  to: number;
}

const EVERY_ROWID: RowidRange = { from: Number.MIN_SAFE_INTEGER, to: Number.MAX_SAFE_INTEGER };

/** The filters a search applies, normalised. */
export interface CandidateFilters {
  project: string | null;
  type: ObservationType | 'summary' | null;
  sinceMs: number | null;
}

/**
 * The index queries a search is made of, each for any FTS5 match expression and the same
 * filters: rank rows by bm25, take the newest rows that match, count rows. Ranking reads the
 * index alone and returns rowids; a filter by project, type or date needs a row per match, and
 * those queries join the tables (CROSS JOIN keeps the index as the outer loop: the match decides
 * which rows are read).
 */
export function createSearchCandidates(db: Database.Database, table: string = SEARCH_TABLE) {
  const T = table;
  const bm25 = `bm25(${T}, ${COLUMN_WEIGHTS.join(', ')})`;
  const kinds = { any: '', observation: `AND ${T}.rowid > 0`, summary: `AND ${T}.rowid < 0` } as const;
  // Plain bounds FTS5 reads as a rowid range, so only the rows inside it are ranked.
  const span = `AND ${T}.rowid >= @from AND ${T}.rowid <= @to`;
  const where = (alias: string) =>
    `(@project IS NULL OR ${alias}.project = @project OR ${alias}.project = @project || '/') AND (@since IS NULL OR ${alias}.created_at >= @since)`;
  const joined = {
    observation: `CROSS JOIN observations o ON o.id = ${T}.rowid WHERE ${T} MATCH @match AND ${T}.rowid > 0 AND ${where('o')} AND (@type IS NULL OR o.type = @type)`,
    summary: `CROSS JOIN summaries s ON s.id = -${T}.rowid WHERE ${T} MATCH @match AND ${T}.rowid < 0 AND ${where('s')}`,
  };
  const rankAll = Object.fromEntries(
    Object.entries(kinds).map(([kind, only]) => [
      kind,
      db.prepare(`SELECT rowid, ${bm25} AS rank FROM ${T} WHERE ${T} MATCH @match ${only} ${span} ORDER BY rank, rowid DESC LIMIT @limit`),
    ]),
  ) as Record<keyof typeof kinds, Database.Statement>;
  const rankFiltered = {
    observation: db.prepare(`SELECT ${T}.rowid AS rowid, ${bm25} AS rank FROM ${T} ${joined.observation} ${span} ORDER BY rank, rowid DESC LIMIT @limit`),
    summary: db.prepare(`SELECT ${T}.rowid AS rowid, ${bm25} AS rank FROM ${T} ${joined.summary} ${span} ORDER BY rank, rowid DESC LIMIT @limit`),
  };
  // Newest first: an observation's rowid grows with time; a summary's (its id negated) shrinks.
  const newest = {
    observation: db.prepare(`SELECT ${T}.rowid FROM ${T} ${joined.observation} ORDER BY ${T}.rowid DESC LIMIT @limit`).pluck(),
    summary: db.prepare(`SELECT ${T}.rowid FROM ${T} ${joined.summary} ORDER BY ${T}.rowid ASC LIMIT @limit`).pluck(),
  };
  const countAll = db.prepare(`SELECT count(*) FROM ${T} WHERE ${T} MATCH ?`).pluck();
  const countNewest = db.prepare(`SELECT count(*) AS n, min(rowid) AS last FROM (SELECT rowid FROM ${T} WHERE ${T} MATCH ? ORDER BY rowid DESC LIMIT ?)`);

  const filtered = (f: CandidateFilters) => f.project !== null || f.sinceMs !== null || (f.type !== null && f.type !== 'summary');
  const wantsObservations = (f: CandidateFilters) => f.type !== 'summary';
  const wantsSummaries = (f: CandidateFilters) => f.type === null || f.type === 'summary';
  const params = (match: string, f: CandidateFilters, limit: number) => ({ match, project: f.project, since: f.sinceMs, limit });

  return {
    /** The best `limit` rows for the expression, best first (rank, then newest); only rowids within `rowids` when given. */
    rank(match: string, f: CandidateFilters, limit: number, rowids: RowidRange = EVERY_ROWID): Ranked[] {
      if (!filtered(f)) return rankAll[f.type === 'summary' ? 'summary' : 'any'].all({ match, limit, ...rowids }) as Ranked[];
      const observations = wantsObservations(f) ? (rankFiltered.observation.all({ ...params(match, f, limit), ...rowids, type: f.type }) as Ranked[]) : [];
      const summaries = wantsSummaries(f) ? (rankFiltered.summary.all({ ...params(match, f, limit), ...rowids }) as Ranked[]) : [];
      // One index, so ranks of both kinds are on the same scale.
      return [...observations, ...summaries].sort((a, b) => a.rank - b.rank || b.rowid - a.rowid).slice(0, limit);
    },
    /** The newest rows matching the expression: up to `limit` observations and up to `limit` summaries. */
    newest(match: string, f: CandidateFilters, limit: number): number[] {
      const observations = wantsObservations(f)
        ? (newest.observation.all({ ...params(match, f, limit), type: f.type === 'summary' ? null : f.type }) as number[])
        : [];
      const summaries = wantsSummaries(f) ? (newest.summary.all(params(match, f, limit)) as number[]) : [];
      return [...observations, ...summaries];
    },
    /** Rows matching, all of them (reads the expression's whole doclists). */
    count: (match: string) => Number(countAll.get(match)),
    /** Rows matching among the newest, up to `cap`: the count, and the lowest rowid reached. */
    countNewest(match: string, cap: number): { n: number; last: number | null } {
      const row = countNewest.get(match, cap) as { n: number; last: number | null };
      return { n: row.n, last: row.last };
    },
  };
}
