import type Database from 'better-sqlite3';
import type { ObservationType } from '../observer/types.js';
import { SEARCH_TABLE } from '../store/index.js';
import { buildSearchQuery } from './query.js';
import { makeSnippet } from './snippet.js';

/** `search --json`'s result shape (SPEC §4.10); a higher score is better. */
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
}

export interface SearchFilters {
  /** Exact project path; a trailing `/` on either side is ignored. */
  project?: string | null;
  /** An observation type, or `summary` for session summaries only. */
  type?: ObservationType | 'summary' | null;
  /** Inclusive lower bound on created_at (epoch ms). */
  sinceMs?: number | null;
  limit?: number;
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

type Row = Record<string, unknown> & { id: number; rank: number };

export type MemorySearch = ReturnType<typeof createMemorySearch>;

/** Ranked full-text search over one store's observations and summaries. */
export function createMemorySearch(db: Database.Database) {
  const bm25 = `bm25(${SEARCH_TABLE}, ${COLUMN_WEIGHTS.join(', ')})`;
  // CROSS JOIN keeps the index as the outer loop: the match decides which rows are read.
  const filters = (alias: string) =>
    `(@project IS NULL OR ${alias}.project = @project OR ${alias}.project = @project || '/') AND (@since IS NULL OR ${alias}.created_at >= @since)`;
  const observations = db.prepare(`
    SELECT o.id, o.session_id, o.project, o.type, o.title, o.subtitle, o.narrative, o.facts, o.created_at, ${bm25} AS rank
    FROM ${SEARCH_TABLE} CROSS JOIN observations o ON o.id = ${SEARCH_TABLE}.rowid
    WHERE ${SEARCH_TABLE} MATCH @match AND ${SEARCH_TABLE}.rowid > 0 AND ${filters('o')} AND (@type IS NULL OR o.type = @type)
    ORDER BY rank LIMIT @limit`);
  const summaries = db.prepare(`
    SELECT s.id, s.session_id, s.project, s.request, s.investigated, s.learned, s.completed, s.next_steps, s.notes, s.created_at, ${bm25} AS rank
    FROM ${SEARCH_TABLE} CROSS JOIN summaries s ON s.id = -${SEARCH_TABLE}.rowid
    WHERE ${SEARCH_TABLE} MATCH @match AND ${SEARCH_TABLE}.rowid < 0 AND ${filters('s')}
    ORDER BY rank LIMIT @limit`);

  return {
    /** Best first. Throws EmptyQueryError when the text has no word to search for. */
    search(text: string, options: SearchFilters = {}): SearchHit[] {
      const query = buildSearchQuery(text);
      if (!query.ok) throw new EmptyQueryError(query.reason);
      const limit = Math.min(Math.max(1, options.limit ?? DEFAULT_SEARCH_LIMIT), MAX_SEARCH_LIMIT);
      const type = options.type ?? null;
      const params = { match: query.match, project: options.project ? normalizeProject(options.project) : null, since: options.sinceMs ?? null, limit };
      const hits: Array<SearchHit & { rank: number }> = [];
      if (type !== 'summary') {
        for (const r of observations.all({ ...params, type }) as Row[]) {
          const facts = JSON.parse(String(r.facts)) as string[];
          hits.push(hit(r, 'observation', r.type as ObservationType, String(r.title), makeSnippet([String(r.narrative), String(r.subtitle), ...facts, String(r.title)], query.words)));
        }
      }
      if (type === null || type === 'summary') {
        for (const r of summaries.all(params) as Row[]) {
          const fields = ['learned', 'completed', 'investigated', 'next_steps', 'notes', 'request'].map((k) => String(r[k]));
          hits.push(hit(r, 'summary', 'summary', String(r.request), makeSnippet(fields, query.words)));
        }
      }
      // One index, so ranks of both kinds are on the same scale.
      return hits
        .sort((a, b) => a.rank - b.rank || b.id - a.id)
        .slice(0, limit)
        .map(({ rank: _rank, ...h }) => h);
    },
  };
}

function hit(r: Row, kind: SearchHit['kind'], type: SearchHit['type'], title: string, snippet: string): SearchHit & { rank: number } {
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
    score: Number((-r.rank).toPrecision(4)),
    rank: r.rank,
  };
}
