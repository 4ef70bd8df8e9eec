import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { compareCodePoints, pairInstalls, REVIEW_MEASURES, type InstallSums } from '../../../src/fleet/review/index.js';

describe('pairing installs across two versions', () => {
  it("orders install ids as SQLite's text order does, so both sources add in the same order", () => {
    const ids = ['b', 'a', 'ab', 'A', 'Z', '', 'é', 'ÿ', '\u{E000}x', '\u{FFFD}', '\u{1F600}', '\u{10000}', 'a\u{1F600}', 'a\u{FFFF}', '9', '日本'];
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (id TEXT)');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    for (const id of ids) insert.run(id);
    const sqlite = (db.prepare('SELECT id FROM t ORDER BY id').all() as Array<{ id: string }>).map((r) => r.id);
    expect([...ids].sort(compareCodePoints)).toEqual(sqlite);
    db.close();
  });

  it('lines up each install on both versions and counts the rows each version has', () => {
    const row = (install: string, version: string, n: number): InstallSums => ({
      install,
      version,
      num: REVIEW_MEASURES.map(() => n),
      den: REVIEW_MEASURES.map(() => 10),
    });
    const paired = pairInstalls(
      [row('b', '0.2.0', 2), row('a', '0.1.0', 1), row('c', '0.1.0', 3), row('b', '0.1.0', 4), row('x', '9.9.9', 7)],
      '0.1.0',
      '0.2.0',
    );
    expect(paired.rows).toEqual({ baseline: 3, candidate: 1 });
    expect([...paired.baseline[0]!.num]).toEqual([1, 4, 3]);
    expect([...paired.candidate[0]!.num]).toEqual([0, 2, 0]);
  });
});
