import type Database from 'better-sqlite3';
import type { ObservationType } from '../vocabulary/observation.js';
import { buildSearchQuery } from './query.js';
import { createSearchCandidates } from './search-candidates.js';
import { createHybridRanking, DEFAULT_HYBRID, type HybridConfig, type RankingTrace } from './search-hybrid.js';
import { snippetsFor } from './snippet.js';

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
export { COLUMN_WEIGHTS } from './search-candidates.js';

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

type Row = Record<string, unknown> & { id: number };

/**
 * Ranked full-text search over one store's observations and summaries: the same engine for the
 * CLI, the MCP server and the viewer. Ranking reads the index alone and returns rowids; only the
 * results' rows are read afterwards. A question of common words in a large store is ranked by
 * src/memory/search-hybrid.ts, which never reads a common word's whole doclist; every other
 * search (and `everyWord`, forget's --match) is ranked by FTS5's bm25 over the whole query.
 */
export function createMemorySearch(db: Database.Database, config: HybridConfig = DEFAULT_HYBRID) {
  const candidates = createSearchCandidates(db);
  const hybrid = createHybridRanking(db, candidates, config);
  const observation = db.prepare('SELECT id, session_id, project, type, title, subtitle, narrative, facts, created_at, origin FROM observations WHERE id = ?');
  const summary = db.prepare(
    'SELECT id, session_id, project, request, investigated, learned, completed, next_steps, notes, created_at, origin FROM summaries WHERE id = ?',
  );

  return {
    /** How the last search was ranked (for the bench). */
    lastTrace: (): RankingTrace | null => hybrid.lastTrace(),
    /** Best first. Throws EmptyQueryError when the text has no word to search for. */
    search(text: string, options: SearchFilters = {}): SearchHit[] {
      const query = buildSearchQuery(text, { every: options.everyWord === true });
      if (!query.ok) throw new EmptyQueryError(query.reason);
      const limit = Math.min(Math.max(1, options.limit ?? DEFAULT_SEARCH_LIMIT), MAX_SEARCH_LIMIT);
      const filters = { type: options.type ?? null, project: options.project ? normalizeProject(options.project) : null, sinceMs: options.sinceMs ?? null };
      const snippet = snippetsFor(query.words);
      const ranked = options.everyWord ? candidates.rank(query.match, filters, limit) : hybrid.rank(query.match, query.terms, filters, limit);
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
              snippet([String(r.narrative), String(r.subtitle), ...facts, String(r.title)]),
            ),
          ];
        }
        const r = summary.get(-rowid) as Row | undefined;
        if (!r) return [];
        const fields = ['learned', 'completed', 'investigated', 'next_steps', 'notes', 'request'].map((k) => String(r[k]));
        return [hit(r, rank, 'summary', 'summary', String(r.request), snippet(fields))];
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
