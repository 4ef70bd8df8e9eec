/**
 * FTS5's bm25, step for step (sqlite's fts5_aux.c), for rows a search scores itself. Pure. Given
 * the same statistics it returns the same number as `bm25(memory_fts, …weights)`, so results
 * scored here and results ranked by FTS5 sit on one scale. Lower is better, as FTS5's rank.
 */
const K1 = 1.2;
const B = 0.75;

export interface IndexShape {
  /** Rows in the index, and tokens in all of them. */
  rows: number;
  tokens: number;
}

/** FTS5's IDF: log((N − n + ½) / (n + ½)), never below a millionth (a word in most rows still counts a little). */
export function idf(rows: number, hits: number): number {
  const value = Math.log((rows - hits + 0.5) / (hits + 0.5));
  return value <= 0 ? 1e-6 : value;
}

/** The most one phrase can add to a row's score, whatever the row: its IDF times (k1 + 1). */
export const phraseCeiling = (phraseIdf: number) => phraseIdf * (K1 + 1);

/**
 * One row's bm25. `occurrences[i]`: the column of every occurrence of phrase i in the row;
 * `weights`: per column; `rowTokens`: the row's length in tokens (all columns).
 */
export function bm25(
  occurrences: readonly (readonly number[])[],
  idfs: readonly number[],
  weights: readonly number[],
  rowTokens: number,
  shape: IndexShape,
): number {
  const avgdl = shape.tokens / shape.rows;
  let score = 0;
  for (let i = 0; i < idfs.length; i += 1) {
    let freq = 0;
    for (const col of occurrences[i] ?? []) freq += weights[col] ?? 1;
    score += idfs[i]! * ((freq * (K1 + 1)) / (freq + K1 * (1 - B + (B * rowTokens) / avgdl)));
  }
  return -score;
}
