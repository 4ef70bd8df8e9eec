import type Database from 'better-sqlite3';
import type { ObservationType } from '../vocabulary/observation.js';
import { SEARCH_TABLE } from '../store/index.js';
import { buildSearchQuery } from './query.js';
import { makeSnippet } from './snippet.js';

/** `search --json`'s result shape (docs/interfaces.md#memtrace-search); a higher score is better. */
export interface SearchHit {
  id: number;
  kind: 'observation' | 'summary';
  type: ObservationType | 'summary';
  title: string;
  snippet: string;
  session_id: string;
  project: string | null;
  created_at: string;
  score: number;
  /** Who made it, when a member of a shared project did (docs/sharing.md); null: made on this machine. */
  origin: string | null;
}

export interface SearchFilters {
  /** Exact project path; a trailing `/` on either side is ignored. */
  project?: string | null;
  /** An observation type, or `summary` for session summaries only. */
  type?: ObservationType | 'summary' | null;
  /** Inclusive lower bound on created_at (epoch ms). */
  sinceMs?: number | null;
  limit?: number;
  /** Only rows holding every word of the query (forget's --match), not any of them. */
  everyWord?: boolean;
}

export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 1000;

/**
 * bm25 column weights, in SEARCH_COLUMNS order (title, subtitle, narrative, facts, concepts,
 * files, terms). Tuned on the tune split of bench/memory.bench.ts.
 */
export const COLUMN_WEIGHTS = [10, 3, 1, 2, 2, 4, 1] as const;

/** A query with no words: the caller reports it (the CLI exits 2). */
export class EmptyQueryError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'EmptyQueryError';
  }
}

/** `/a/b/` → `/a/b`, but `/` stays `/`. */
export function normalizeProject(project: string): string {
  const trimmed = project.replace(/\/+$/, '');
  return trimmed === '' && project !== '' ? '/' : trimmed;
}

type Ranked = { rowid: number; rank: number };
type Row = Record<string, unknown> & { id: number };

/**
 * Ranked full-text search over one store's observations and summaries. Ranking reads the index
 * alone and returns rowids; only the results' rows are read afterwards. (Carrying each match's
 * row through the sort made a search on a 100k store about 2.5 times slower.) A filter by
 * project, type or date needs a row per match: those searches join the tables, id and rank only.
 */
export function createMemorySearch(db: Database.Database) {
  const T = SEARCH_TABLE;
  const bm25 = `bm25(${T}, ${COLUMN_WEIGHTS.join(', ')})`;
  const kinds = { any: '', observation: `AND ${T}.rowid > 0`, summary: `AND ${T}.rowid < 0` } as const;
  const unfiltered = Object.fromEntries(
    Object.entries(kinds).map(([kind, only]) => [
      kind,
      db.prepare(`SELECT rowid, ${bm25} AS rank FROM ${T} WHERE ${T} MATCH @match ${only} ORDER BY rank, rowid DESC LIMIT @limit`),
    ]),
  ) as Record<keyof typeof kinds, Database.Statement>;
  const where = (alias: string) =>
    `(@project IS NULL OR ${alias}.project = @project OR ${alias}.project = @project || '/') AND (@since IS NULL OR ${alias}.created_at >= @since)`;
  // CROSS JOIN keeps the index as the outer loop: the match decides which rows are read.
  const filteredObservations = db.prepare(`
    SELECT ${T}.rowid AS rowid, ${bm25} AS rank FROM ${T} CROSS JOIN observations o ON o.id = ${T}.rowid
    WHERE ${T} MATCH @match AND ${T}.rowid > 0 AND ${where('o')} AND (@type IS NULL OR o.type = @type) ORDER BY rank, rowid DESC LIMIT @limit`);
  const filteredSummaries = db.prepare(`
    SELECT ${T}.rowid AS rowid, ${bm25} AS rank FROM ${T} CROSS JOIN summaries s ON s.id = -${T}.rowid
    WHERE ${T} MATCH @match AND ${T}.rowid < 0 AND ${where('s')} ORDER BY rank, rowid DESC LIMIT @limit`);
  const observation = db.prepare('SELECT id, session_id, project, type, title, subtitle, narrative, facts, created_at, origin FROM observations WHERE id = ?');
  const summary = db.prepare(
    'SELECT id, session_id, project, request, investigated, learned, completed, next_steps, notes, created_at, origin FROM summaries WHERE id = ?',
  );

  return {
    /** Best first. Throws EmptyQueryError when the text has no word to search for. */
    search(text: string, options: SearchFilters = {}): SearchHit[] {
      const query = buildSearchQuery(text, { every: options.everyWord === true });
      if (!query.ok) throw new EmptyQueryError(query.reason);
      const limit = Math.min(Math.max(1, options.limit ?? DEFAULT_SEARCH_LIMIT), MAX_SEARCH_LIMIT);
      const type = options.type ?? null;
      const project = options.project ? normalizeProject(options.project) : null;
      const since = options.sinceMs ?? null;
      let ranked: Ranked[];
      if (project === null && since === null && (type === null || type === 'summary')) {
        ranked = unfiltered[type === 'summary' ? 'summary' : 'any'].all({ match: query.match, limit }) as Ranked[];
      } else {
        const params = { match: query.match, project, since, limit };
        const observations = type === 'summary' ? [] : (filteredObservations.all({ ...params, type }) as Ranked[]);
        const summaries = type === null || type === 'summary' ? (filteredSummaries.all(params) as Ranked[]) : [];
        // One index, so ranks of both kinds are on the same scale.
        ranked = [...observations, ...summaries].sort((a, b) => a.rank - b.rank || b.rowid - a.rowid).slice(0, limit);
      }
      return ranked.flatMap(({ rowid, rank }) => {
        if (rowid > 0) {
          const r = observation.get(rowid) as Row | undefined;
          if (!r) return [];
          const facts = JSON.parse(String(r.facts)) as string[];
          return [
            hit(
              r,
              rank,
              'observation',
              r.type as ObservationType,
              String(r.title),
              makeSnippet([String(r.narrative), String(r.subtitle), ...facts, String(r.title)], query.words),
            ),
          ];
        }
        const r = summary.get(-rowid) as Row | undefined;
        if (!r) return [];
        const fields = ['learned', 'completed', 'investigated', 'next_steps', 'notes', 'request'].map((k) => String(r[k]));
        return [hit(r, rank, 'summary', 'summary', String(r.request), makeSnippet(fields, query.words))];
      });
    },
  };
}

function hit(r: Row, rank: number, kind: SearchHit['kind'], type: SearchHit['type'], title: string, snippet: string): SearchHit {
  return {
    id: r.id,
    kind,
    type,
    title,
    snippet,
    session_id: String(r.session_id),
    project: (r.project as string | null) ?? null,
    created_at: new Date(Number(r.created_at)).toISOString(),
    // Significant digits, not decimals: in a small store bm25 scores are tiny but still ordered.
    score: Number((-rank).toPrecision(4)),
    origin: (r.origin as string | null | undefined) ?? null,
  };
}
