/**
 * Search quality on the retrieval set of memory-corpus.ts: recall@5 and MRR@10 of memtrace's
 * search (the real store, index and query path) next to a plain BM25 baseline (MiniSearch with
 * its defaults: every field weighted alike, no stemming, no prefixes, OR of the words), on the
 * same items and the same questions, per split.
 */
import path from 'node:path';
import MiniSearch from 'minisearch';
import { createMemorySearch } from '../src/memory/index.js';
import { openStore } from '../src/store/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { buildCorpus, loadQuestions, type CorpusItem, type Question } from './memory-corpus.js';

export interface Scores {
  questions: number;
  recall_at_5: number;
  mrr_at_10: number;
}

export interface QualityReport {
  corpus: { items: number; commits: number; source_files: number; doc_sections: number };
  splits: Record<'tune' | 'test', { memtrace: Scores; minisearch_bm25: Scores }>;
  /** Questions of the split whose item memtrace did not rank in the top 10 (for reading, not scoring). */
  misses?: Array<{ q: string; target: string; memtrace_rank: number | null; baseline_rank: number | null }>;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

export function score(ranks: Array<number | null>): Scores {
  const n = ranks.length;
  return {
    questions: n,
    recall_at_5: round(ranks.filter((r) => r !== null && r <= 5).length / n),
    mrr_at_10: round(ranks.reduce((sum: number, r) => sum + (r !== null && r <= 10 ? 1 / r : 0), 0) / n),
  };
}

export function baselineIndex(corpus: readonly CorpusItem[]) {
  const mini = new MiniSearch<{ id: string; title: string; subtitle: string; narrative: string; facts: string; concepts: string; files: string }>({
    fields: ['title', 'subtitle', 'narrative', 'facts', 'concepts', 'files'],
  });
  mini.addAll(
    corpus.map((c) => ({
      id: c.key,
      title: c.observation.title,
      subtitle: c.observation.subtitle,
      narrative: c.observation.narrative,
      facts: c.observation.facts.join('\n'),
      concepts: c.observation.concepts.join('\n'),
      files: [...c.observation.files_modified, ...c.observation.files_read].join('\n'),
    })),
  );
  return mini;
}

/** `splits`: which splits to score (tuning passes only 'tune', so the test split stays unseen). */
export function evaluateQuality(options: { splits?: Array<'tune' | 'test'>; misses?: 'tune' | null } = {}): QualityReport {
  const wanted = options.splits ?? ['tune', 'test'];
  const corpus = buildCorpus();
  const questions = loadQuestions().filter((q) => wanted.includes(q.split));
  const temp = makeTempDir('memtrace-bench-quality-');
  const store = openStore(path.join(temp.dir, 'memtrace.db'));
  try {
    const idOf = new Map<string, number>();
    store.db.transaction(() => {
      for (const item of corpus) {
        idOf.set(
          item.key,
          store.observations.insert(item.observation, {
            sessionId: item.key.split(':')[0]!,
            project: '/work/memtrace',
            sourceMessageIds: [],
            provider: 'replay',
            model: null,
            promptVersion: 'bench',
            discoveryTokens: null,
            createdAt: item.createdAt,
          }),
        );
      }
    })();
    const search = createMemorySearch(store.db);
    const mini = baselineIndex(corpus);
    const rankOf = (list: readonly string[], target: string) => {
      const at = list.indexOf(target);
      return at < 0 ? null : at + 1;
    };
    const keyOf = new Map([...idOf].map(([k, v]) => [v, k]));
    const ranks = questions.map((q: Question) => ({
      q,
      memtrace: rankOf(
        search.search(q.q, { limit: 10 }).map((h) => keyOf.get(h.id) ?? ''),
        q.target,
      ),
      baseline: rankOf(
        mini
          .search(q.q)
          .slice(0, 10)
          .map((r) => String(r.id)),
        q.target,
      ),
    }));
    const splits = {} as QualityReport['splits'];
    for (const split of wanted) {
      const inSplit = ranks.filter((r) => r.q.split === split);
      splits[split] = { memtrace: score(inSplit.map((r) => r.memtrace)), minisearch_bm25: score(inSplit.map((r) => r.baseline)) };
    }
    const kinds = (prefix: string) => corpus.filter((c) => c.key.startsWith(prefix)).length;
    const report: QualityReport = {
      corpus: { items: corpus.length, commits: kinds('commit:'), source_files: kinds('file:'), doc_sections: kinds('doc:') },
      splits,
    };
    if (options.misses) {
      report.misses = ranks
        .filter((r) => r.q.split === options.misses && (r.memtrace === null || r.memtrace > 5))
        .map((r) => ({ q: r.q.q, target: r.q.target, memtrace_rank: r.memtrace, baseline_rank: r.baseline }));
    }
    return report;
  } finally {
    store.close();
    temp.cleanup();
  }
}
