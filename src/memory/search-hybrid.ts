import type Database from 'better-sqlite3';
import {
  createSearchScratch,
  createSearchStats,
  OBSERVATION_CONTENT_COLUMNS,
  observationDocument,
  SEARCH_RECENT_TABLE,
  summaryDocument,
  toParsedObservation,
  type ScratchDoc,
} from '../store/index.js';
import type { ParsedSummary } from '../vocabulary/observation.js';
import { bm25, idf, phraseCeiling } from './bm25.js';
import type { QueryTerm } from './query.js';
import { COLUMN_WEIGHTS, createSearchCandidates, type CandidateFilters, type Ranked } from './search-candidates.js';

/**
 * Ranking that stays fast in a store of a million observations (docs/memory.md#search-at-scale).
 *
 * FTS5's bm25() first counts every row of every phrase in the whole index (its IDF), and a prefix
 * phrase merges the doclists of all the words it begins: a question holding a few common words
 * ("hook", "worker") reads hundreds of thousands of postings, whatever the limit. So:
 * 1. How common each phrase is: first its share of the small recent index scaled to the whole
 *    index (common now is common), when enough of its rows hold the phrase to say so; else the
 *    phrase as matched, prefix and all ("even" * begins "event"), among the newest rows up to
 *    `cap` (a streamed read that stops there). Under `cap` the count is every row the phrase
 *    matches; at `cap` the phrase is common, its rows estimated from the span of newest rows it
 *    took to reach the cap.
 * 2. A store of at most `exactBudget` rows, or no common phrase and the rare ones within
 *    `exactBudget` rows together: FTS5 ranks the whole query over the whole index, as before, so
 *    results are exactly the old engine's.
 * 3. Otherwise two pools of candidates: the best rows of all history by the rare phrases alone
 *    (FTS5's bm25 over them), and the best rows of recent memory by the whole query (FTS5's bm25
 *    over `memory_fts_recent`, its observations and, apart, its summaries: the newest 2,500 and
 *    250). Each candidate is then scored over the whole query by the same bm25
 *    (src/memory/bm25.ts) with the whole index's statistics: its phrases found by the index's own
 *    tokenizer (src/store/search-scratch.ts), a rare phrase's IDF from its exact count, a common
 *    one's from the estimate. The history pool grows while a row outside it could still beat the
 *    results by the score bound (its rank over the rare phrases plus the most the common ones can
 *    add).
 * So recent memory is ranked whole, and all of history is reached through its rarer words.
 */
export interface HybridConfig {
  /** Rows a phrase may hold among the newest before it counts as common. */
  cap: number;
  /** Rows the rare phrases may hold together for FTS5 to rank the whole query itself. */
  exactBudget: number;
  /** First size of the history pool, and the most it may grow to. */
  pool: number;
  maxPool: number;
  /** Rows taken from recent memory, of each kind. */
  recent: number;
  /** Rows of the recent index a phrase must hold before its share there may call it common (fewer say too little). */
  recentEvidence: number;
}

/**
 * Tuned on the memory-scale bench (real word frequencies, 100k and 1M observations): a question's
 * cost is the postings it reads and the rows it scores. A common word is known after 1,000 of the
 * newest rows as surely as after 2,000; ranking recent memory costs in proportion to the rows of
 * the recent index (bm25 counts each phrase over all of it), so it holds only the newest 2,500
 * observations and 250 summaries (step 1400; 10,000 and 1,000 gave the same best result to every
 * bench question, a fifth slower); pools past 32 history rows and 8 recent ones (at least the
 * limit) changed no question's best result, nor the top ten's agreement, against FTS5 ranking the
 * whole index (the bench prints that agreement beside recall). 16 recent rows cost 2–4 ms more at
 * the p95 at 100k. Ten rows of the recent index are as many as its 10,000 rows gave a phrase
 * called common at a million observations; fewer are counted in the large index instead.
 */
export const DEFAULT_HYBRID: HybridConfig = {
  cap: 1_000,
  exactBudget: 4_000,
  pool: 32,
  maxPool: 32,
  recent: 8,
  recentEvidence: 10,
};

/** What a ranking did, for the bench: which path, and whether the score bound proved the history pool large enough. */
export interface RankingTrace {
  path: 'exact' | 'hybrid';
  common: number;
  candidates: number;
  bounded: boolean;
}

type Candidates = ReturnType<typeof createSearchCandidates>;

const OBSERVATION_ROWIDS = { from: 1, to: Number.MAX_SAFE_INTEGER };
const SUMMARY_ROWIDS = { from: Number.MIN_SAFE_INTEGER, to: -1 };

export function createHybridRanking(db: Database.Database, candidates: Candidates, config: HybridConfig = DEFAULT_HYBRID) {
  const stats = createSearchStats(db);
  const scratch = createSearchScratch(db);
  const hasRecent = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(SEARCH_RECENT_TABLE) !== undefined;
  const recent = hasRecent ? createSearchCandidates(db, SEARCH_RECENT_TABLE) : null;
  const recentStats = hasRecent ? createSearchStats(db, SEARCH_RECENT_TABLE) : null;
  // Only what the index holds of a row, none of its provenance.
  const observations = db.prepare(`SELECT id, ${OBSERVATION_CONTENT_COLUMNS} FROM observations WHERE id IN (SELECT value FROM json_each(?))`);
  const summaries = db.prepare(
    'SELECT id, request, investigated, learned, completed, next_steps, notes FROM summaries WHERE id IN (SELECT value FROM json_each(?))',
  );
  let trace: RankingTrace | null = null;

  const documents = (rowids: readonly number[]): ScratchDoc[] => {
    const docs: ScratchDoc[] = [];
    for (const row of observations.all(JSON.stringify(rowids.filter((r) => r > 0))) as Array<Record<string, unknown>>) {
      docs.push({ rowid: row.id as number, doc: observationDocument(toParsedObservation(row)) });
    }
    for (const row of summaries.all(JSON.stringify(rowids.filter((r) => r < 0).map((r) => -r))) as Array<ParsedSummary & { id: number }>) {
      docs.push({ rowid: -row.id, doc: summaryDocument(row) });
    }
    return docs;
  };

  return {
    lastTrace: () => trace,
    rank(match: string, terms: readonly QueryTerm[], filters: CandidateFilters, limit: number): Ranked[] {
      const exact = () => {
        trace = { path: 'exact', common: 0, candidates: 0, bounded: true };
        return candidates.rank(match, filters, limit);
      };
      const totals = stats.totals();
      // A store this small costs FTS5 little whatever the words: nothing to count.
      if (totals.rows <= config.exactBudget) return exact();
      const recentRows = recentStats?.rows() ?? 0;
      const seen = terms.map((t) => {
        // First the phrase's share of recent memory (the small recent index: a cheap count), scaled to
        // the whole index: what is common now is common, with no read of the large index at all.
        if (recent && recentRows > 0) {
          const hits = recent.count(t.match);
          const rows = Math.min(totals.rows, Math.round((hits * totals.rows) / recentRows));
          if (rows >= config.cap && hits >= config.recentEvidence) return { term: t, common: true, rows };
        }
        // Then the phrase as matched (a prefix too: a rare word can begin common ones, "even" → "event")
        // among the newest rows, up to the cap: under it the count is every row the phrase matches.
        const { n, last } = candidates.countNewest(t.match, config.cap);
        if (n < config.cap) return { term: t, common: false, rows: n };
        const span = last !== null && last > 0 ? totals.maxRowid - last + 1 : totals.rows;
        return { term: t, common: true, rows: Math.min(totals.rows, Math.round((n * totals.rows) / Math.max(span, n))) };
      });
      const selective: typeof seen = [];
      let budget = config.exactBudget;
      for (const s of seen.filter((x) => !x.common).sort((a, b) => a.rows - b.rows)) {
        if (s.rows > budget) break;
        budget -= s.rows;
        selective.push(s);
      }
      if (selective.length === terms.length) return exact();
      const idfs = seen.map((s) => idf(totals.rows, s.rows));
      // The most the phrases outside the rare expression can add to any row.
      const ceiling = seen.reduce((sum, s, i) => sum + (selective.includes(s) ? 0 : phraseCeiling(idfs[i]!)), 0);

      const scores = new Map<number, number>();
      const score = (rowids: readonly number[]) => {
        const fresh = [...new Set(rowids)].filter((r) => !scores.has(r));
        if (fresh.length === 0) return;
        const docs = documents(fresh);
        const found = scratch.occurrences(
          docs,
          terms.map((t) => ({ text: t.text, prefix: t.prefix })),
        );
        const lengths = stats.rowTokens(fresh);
        for (const d of docs) scores.set(d.rowid, bm25(found.get(d.rowid)!, idfs, COLUMN_WEIGHTS, lengths.get(d.rowid) ?? 0, totals));
      };
      const best = () =>
        [...scores]
          .map(([rowid, rank]) => ({ rowid, rank }))
          .sort((a, b) => a.rank - b.rank || b.rowid - a.rowid)
          .slice(0, limit);

      const kthOf = (results: Ranked[]) => (results.length === limit ? -results.at(-1)!.rank : 0);
      // Recent memory's best and the first slice of history's are scored together: one pass of the
      // scratch tokenizer costs about as much for 20 rows as for 50.
      const recentBest: number[] = [];
      if (recent) {
        // Each kind of recent memory apart, in its own rowid range (observations count up, summaries down).
        const take = Math.max(config.recent, limit);
        for (const range of [OBSERVATION_ROWIDS, SUMMARY_ROWIDS]) for (const r of recent.rank(match, filters, take, range)) recentBest.push(r.rowid);
      }
      let bounded: boolean;
      if (selective.length === 0) {
        score(recentBest);
        bounded = kthOf(best()) > ceiling;
      } else {
        // One read of the rare phrases' ranking (its cost is the rows they match, not the limit); scored in growing slices.
        const ranked = candidates.rank(selective.map((s) => s.term.match).join(' OR '), filters, Math.max(config.maxPool, limit * 2));
        for (let pool = Math.max(config.pool, limit * 2); ; pool *= 4) {
          const slice = ranked.slice(0, pool);
          score([...recentBest, ...slice.map((r) => r.rowid)]);
          // A row outside the slice ranks at best as its last over the rare phrases, plus all the others can add.
          bounded = kthOf(best()) > (slice.length < ranked.length || ranked.length === config.maxPool ? -slice.at(-1)!.rank : 0) + ceiling;
          if (bounded || slice.length === ranked.length) break;
        }
      }
      trace = { path: 'hybrid', common: seen.length - selective.length, candidates: scores.size, bounded };
      return best();
    },
  };
}
