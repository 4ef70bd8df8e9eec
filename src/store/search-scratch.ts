import type Database from 'better-sqlite3';
import { SEARCH_COLUMNS, SEARCH_TABLE } from './search-index.js';
import type { SearchDocument } from './search-text.js';

/**
 * Where a phrase occurs inside a few documents, as the index's own tokenizer sees them. FTS5
 * exposes no term frequencies outside bm25(), whose first step counts every row of each phrase
 * in the whole index; so a search that scores a few hundred candidates itself tokenizes them
 * here: two TEMP FTS5 tables on the same connection with the index's columns and tokenizer
 * (read from its definition, so they can never tokenize differently), and fts5vocab to read the
 * instances back. TEMP tables live in the connection's own temp database: nothing is written to
 * the store, and a read-only connection can use them.
 */
export interface ScratchPhrase {
  /** The phrase's text inside its quotes. */
  text: string;
  /** The last token also matches index terms it begins (`"word" *`). */
  prefix: boolean;
}

export interface ScratchDoc {
  rowid: number;
  doc: SearchDocument;
}

/** For each document (by rowid), for each phrase (by index), the column index of every occurrence. */
export type Occurrences = Map<number, number[][]>;

const PROBE = 'temp.memory_search_probe';
const SCRATCH = 'temp.memory_search_scratch';
/** Above every character a term can hold: the end of a prefix's range of terms. */
const LAST = '\u{10FFFF}';

export function createSearchScratch(db: Database.Database) {
  let ready = false;
  const columnIndex = new Map<string, number>(SEARCH_COLUMNS.map((c, i) => [c, i]));
  const statements = () => {
    if (!ready) {
      const sql = String(db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(SEARCH_TABLE) ?? '');
      const tokenize = /tokenize\s*=\s*("(?:[^"]|"")*"|'(?:[^']|'')*')/i.exec(sql)?.[1];
      const options = `content = ''${tokenize ? `, tokenize = ${tokenize}` : ''}`;
      for (const table of [PROBE, SCRATCH]) {
        db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING fts5(${SEARCH_COLUMNS.join(', ')}, ${options})`);
        db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${table}_v USING fts5vocab(temp, ${table.slice(5)}, instance)`);
      }
      ready = true;
    }
    return {
      probe: db.prepare(`INSERT INTO ${PROBE} (rowid, title) VALUES (?, ?)`),
      probeTokens: db.prepare(`SELECT doc, term, offset FROM ${PROBE}_v`).raw(),
      insert: db.prepare(`INSERT INTO ${SCRATCH} (rowid, ${SEARCH_COLUMNS.join(', ')}) VALUES (@rowid, ${SEARCH_COLUMNS.map((c) => `@${c}`).join(', ')})`),
      exact: db.prepare(`SELECT doc, col, offset FROM ${SCRATCH}_v WHERE term = ?`).raw(),
      range: db.prepare(`SELECT doc, col, offset FROM ${SCRATCH}_v WHERE term >= ? AND term < ?`).raw(),
      clear: [
        db.prepare(`INSERT INTO ${PROBE} (${PROBE.slice(5)}) VALUES ('delete-all')`),
        db.prepare(`INSERT INTO ${SCRATCH} (${SCRATCH.slice(5)}) VALUES ('delete-all')`),
      ],
    };
  };
  let cached: ReturnType<typeof statements> | null = null;

  return {
    occurrences(docs: readonly ScratchDoc[], phrases: readonly ScratchPhrase[]): Occurrences {
      cached ??= statements();
      const s = cached;
      const out: Occurrences = new Map(docs.map((d) => [d.rowid, phrases.map(() => [] as number[])]));
      db.transaction(() => {
        for (const c of s.clear) c.run();
        for (const [i, p] of phrases.entries()) s.probe.run(i + 1, p.text);
        for (const d of docs) s.insert.run({ rowid: d.rowid, ...d.doc });
        // Each phrase's tokens in order, as the tokenizer made them.
        const tokens = phrases.map(() => [] as Array<[number, string]>);
        for (const [doc, term, offset] of s.probeTokens.all() as Array<[number, string, number]>) tokens[doc - 1]!.push([offset, term]);
        const found = new Map<string, Array<[number, number, number]>>();
        const instances = (term: string, prefix: boolean) => {
          const key = `${prefix ? '*' : '='}${term}`;
          let rows = found.get(key);
          if (!rows) {
            const raw = (prefix ? s.range.all(term, term + LAST) : s.exact.all(term)) as Array<[number, string, number]>;
            rows = raw.map(([doc, col, offset]): [number, number, number] => [doc, columnIndex.get(col) ?? -1, offset]);
            found.set(key, rows);
          }
          return rows;
        };
        phrases.forEach((p, i) => {
          const units = tokens[i]!.sort((a, b) => a[0] - b[0]).map(([, t]) => t);
          if (units.length === 0) return;
          const at = (u: number) => instances(units[u]!, p.prefix && u === units.length - 1);
          const later = units.slice(1).map((_, u) => new Set(at(u + 1).map(([doc, col, offset]) => `${doc}:${col}:${offset}`)));
          for (const [doc, col, offset] of at(0)) {
            const slots = out.get(doc);
            if (slots && later.every((set, u) => set.has(`${doc}:${col}:${offset + u + 1}`))) slots[i]!.push(col);
          }
        });
        for (const c of s.clear) c.run();
      })();
      return out;
    },
  };
}
