/**
 * Search in scripts written without spaces (issue 29): a retrieval set of Japanese, Chinese,
 * Korean and Thai observations (bench/data/memory-cjk.json, the kind an agent stores for a team
 * that writes its notes in those languages), with questions asked the way a developer asks later,
 * in other words than the titles. The English corpus is stored beside them as distractors, as in
 * a real store. Scored like the English set: recall@5 and MRR@10 of memtrace's search (the real
 * store, index and query path) next to plain BM25 (MiniSearch, its defaults).
 *
 * Then the design choice, measured on the same set: each way of cutting those scripts into index
 * units (character pairs, ICU word segmentation, both, pairs for Thai too, and FTS5's trigram
 * tokenizer over the raw text), by recall@5, MRR@10, index bytes of the CJK items, index time
 * and query time.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { buildSearchQuery } from '../src/memory/query.js';
import { COLUMN_WEIGHTS, createMemorySearch } from '../src/memory/search.js';
import { openStore } from '../src/store/index.js';
import { observationDocument } from '../src/store/search-text.js';
import { queryParts, type ScriptStrategy } from '../src/store/spaceless-scripts.js';
import type { ObservationType, ParsedObservation } from '../src/vocabulary/observation.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { buildCorpus, type CorpusItem } from './memory-corpus.js';
import { baselineIndex, score, type Scores } from './memory-quality.js';

interface CjkItem {
  key: string;
  lang: string;
  type: ObservationType;
  title: string;
  narrative: string;
  facts: string[];
  concepts: string[];
  files: string[];
}
export interface CjkQuestion {
  q: string;
  target: string;
  lang: string;
  split: 'tune' | 'test';
}

const ROOT = path.resolve(import.meta.dirname, '..');

export function loadCjkSet(): { items: CorpusItem[]; questions: CjkQuestion[]; langOf: Map<string, string> } {
  const data = JSON.parse(fs.readFileSync(path.join(ROOT, 'bench', 'data', 'memory-cjk.json'), 'utf8')) as { items: CjkItem[]; questions: CjkQuestion[] };
  const items = data.items.map(
    (item, i): CorpusItem => ({
      key: item.key,
      createdAt: Date.UTC(2026, 2, 1) + i * 60_000,
      observation: {
        type: item.type,
        title: item.title,
        subtitle: '',
        narrative: item.narrative,
        facts: item.facts,
        concepts: item.concepts,
        files_read: [],
        files_modified: item.files,
      },
    }),
  );
  return { items, questions: data.questions, langOf: new Map(data.items.map((i) => [i.key, i.lang])) };
}

const rankOf = (list: readonly string[], target: string) => {
  const at = list.indexOf(target);
  return at < 0 ? null : at + 1;
};

type Ranker = (q: string) => string[];

function scoreBy(questions: readonly CjkQuestion[], rank: Ranker) {
  const ranks = questions.map((q) => ({ q, rank: rankOf(rank(q.q), q.target) }));
  const by = (keep: (q: CjkQuestion) => boolean) => score(ranks.filter((r) => keep(r.q)).map((r) => r.rank));
  const langs = [...new Set(questions.map((q) => q.lang))];
  return {
    all: by(() => true),
    tune: by((q) => q.split === 'tune'),
    test: by((q) => q.split === 'test'),
    by_language: Object.fromEntries(langs.map((l) => [l, by((q) => q.lang === l)])) as Record<string, Scores>,
  };
}

/** memtrace's search as shipped, and plain BM25, on the CJK set with the English corpus beside it. */
export function evaluateCjkQuality() {
  const { items, questions } = loadCjkSet();
  const corpus = [...buildCorpus(), ...items];
  const temp = makeTempDir('memtrace-bench-cjk-');
  const store = openStore(path.join(temp.dir, 'memtrace.db'));
  try {
    const keyOf = new Map<number, string>();
    store.db.transaction(() => {
      for (const item of corpus) {
        const id = store.observations.insert(item.observation, {
          sessionId: 'bench',
          project: '/work/app',
          sourceMessageIds: [],
          provider: 'replay',
          model: null,
          promptVersion: 'bench',
          discoveryTokens: null,
          createdAt: item.createdAt,
        });
        keyOf.set(id, item.key);
      }
    })();
    const search = createMemorySearch(store.db);
    const mini = baselineIndex(corpus);
    return {
      set: { cjk_items: items.length, distractors: corpus.length - items.length, questions: questions.length },
      memtrace: scoreBy(questions, (q) => search.search(q, { limit: 10 }).map((h) => keyOf.get(h.id) ?? '')),
      minisearch_bm25: scoreBy(questions, (q) =>
        mini
          .search(q)
          .slice(0, 10)
          .map((r) => String(r.id)),
      ),
    };
  } finally {
    store.close();
    temp.cleanup();
  }
}

const COLUMNS = ['title', 'subtitle', 'narrative', 'facts', 'concepts', 'files', 'terms'] as const;
const TOKENIZER = `porter unicode61 remove_diacritics 2 categories 'L* N* Co M*'`;

interface Variant {
  name: string;
  tokenizer: string;
  document(o: ParsedObservation): Record<(typeof COLUMNS)[number], string>;
  query(text: string): string | null;
}

function unitsVariant(name: string, strategy: ScriptStrategy): Variant {
  return {
    name,
    tokenizer: TOKENIZER,
    document: (o) => observationDocument(o, strategy),
    query: (text) => {
      const q = buildSearchQuery(text, { strategy });
      return q.ok ? q.match : null;
    },
  };
}

/** FTS5's own trigram tokenizer over the raw text; a query word shorter than three characters cannot match. */
const trigramVariant: Variant = {
  name: 'fts5_trigram',
  tokenizer: 'trigram',
  document: (o) => {
    const files = [...o.files_modified, ...o.files_read].join('\n');
    return { title: o.title, subtitle: o.subtitle, narrative: o.narrative, facts: o.facts.join('\n'), concepts: o.concepts.join('\n'), files, terms: '' };
  },
  query: (text) => {
    // The same words the other variants search (a sentence cut by ICU), as substrings.
    const tokens = (text.match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).flatMap((token) =>
      queryParts(token).flatMap((part) => (part.kind === 'plain' ? [part.text] : part.phrases.map((p) => p.text))),
    );
    const words = [...new Set(tokens.filter((w) => [...w].length >= 3))];
    return words.length > 0 ? words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' OR ') : null;
  },
};

/** Each way of cutting space-less scripts, on the CJK set (English corpus beside it), with its cost. */
export function compareScriptStrategies() {
  const { items, questions } = loadCjkSet();
  const corpus = [...buildCorpus(), ...items];
  const cjkChars = items.reduce((n, i) => n + [...`${i.observation.title}${i.observation.narrative}${i.observation.facts.join('')}`].length, 0);
  const variants: Variant[] = [
    unitsVariant('pairs_cjk_words_thai', { cjk: 'pairs', southeastAsian: 'words' }),
    unitsVariant('words_everywhere', { cjk: 'words', southeastAsian: 'words' }),
    unitsVariant('pairs_and_words_cjk', { cjk: 'pairs+words', southeastAsian: 'words' }),
    unitsVariant('pairs_everywhere', { cjk: 'pairs', southeastAsian: 'pairs' }),
    trigramVariant,
  ];
  const out: Record<string, unknown> = { cjk_characters: cjkChars };
  for (const variant of variants) {
    const db = new Database(':memory:');
    try {
      const make = (table: string) =>
        db.exec(
          `CREATE VIRTUAL TABLE ${table} USING fts5(${COLUMNS.join(', ')}, content = '', contentless_delete = 1, tokenize = "${variant.tokenizer.replaceAll('"', '""')}")`,
        );
      make('cjk_only');
      make('everything');
      const insert = (table: string) =>
        db.prepare(`INSERT INTO ${table} (rowid, ${COLUMNS.join(', ')}) VALUES (@rowid, ${COLUMNS.map((c) => `@${c}`).join(', ')})`);
      const docs = corpus.map((item) => variant.document(item.observation));
      const startedIndex = performance.now();
      const toCjk = insert('cjk_only');
      db.transaction(() => {
        items.forEach((item, i) => void toCjk.run({ rowid: i + 1, ...variant.document(item.observation) }));
      })();
      const indexMs = performance.now() - startedIndex;
      const toAll = insert('everything');
      db.transaction(() => {
        docs.forEach((doc, i) => void toAll.run({ rowid: i + 1, ...doc }));
      })();
      const bytes = (db.prepare('SELECT sum(length(block)) AS n FROM cjk_only_data').get() as { n: number }).n;
      const select = db.prepare(`SELECT rowid FROM everything WHERE everything MATCH ? ORDER BY bm25(everything, ${COLUMN_WEIGHTS.join(', ')}) LIMIT 10`);
      const queryMs: number[] = [];
      const rank: Ranker = (q) => {
        const match = variant.query(q);
        if (match === null) return [];
        const started = performance.now();
        const rows = select.all(match) as Array<{ rowid: number }>;
        queryMs.push(performance.now() - started);
        return rows.map((r) => corpus[r.rowid - 1]!.key);
      };
      const scores = scoreBy(questions, rank);
      out[variant.name] = {
        ...scores,
        cjk_index_bytes: bytes,
        cjk_index_bytes_per_1000_chars: Math.round((bytes / cjkChars) * 1000),
        cjk_index_ms: +indexMs.toFixed(1),
        mean_query_ms: +(queryMs.reduce((a, b) => a + b, 0) / Math.max(1, queryMs.length)).toFixed(3),
      };
    } finally {
      db.close();
    }
  }
  return out;
}
