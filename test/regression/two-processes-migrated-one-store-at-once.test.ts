/**
 * Two processes opening a new store at once (a worker starting while a hook spools through the
 * Node hook, or two hooks) each read the migration ledger, found every step missing, and applied
 * them in turn: the second to reach a step that adds a column failed with "duplicate column name"
 * (a worker that then could not start, seen in the suite under load). Each step is now taken
 * under the write lock and skipped there when the other process applied it meanwhile.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, openDatabase, runMigrations } from '../../src/store/index.js';
import { makeTempDir } from '../support/temp-dir.js';

const LEDGER_READ = 'SELECT id FROM schema_migrations';

/** A connection whose first read of the ledger is followed, before it goes on, by another process migrating the whole file. */
function racedConnection(file: string, otherProcessMigrates: () => void): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  let raced = false;
  return new Proxy(db, {
    get(target, property) {
      if (property !== 'prepare') return Reflect.get(target, property, target);
      return (sql: string) => {
        const statement = target.prepare(sql);
        if (sql !== LEDGER_READ || raced) return statement;
        raced = true;
        return {
          all: () => {
            const rows = statement.all();
            otherProcessMigrates();
            return rows;
          },
        };
      };
    },
  });
}

describe('two processes migrating one new store at once', () => {
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(() => temp.cleanup());

  it('applies every step once: the one that comes second skips what the first applied', () => {
    temp = makeTempDir();
    const file = path.join(temp.dir, 'memtrace.db');
    const first = racedConnection(file, () => openDatabase(file).close());
    try {
      expect(runMigrations(first, MIGRATIONS)).toEqual([]);
      const ledger = first.prepare('SELECT id FROM schema_migrations ORDER BY id').all() as Array<{ id: string }>;
      expect(ledger.map((r) => r.id)).toEqual(MIGRATIONS.map((m) => m.id).sort());
      expect(first.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    } finally {
      first.close();
    }
  });
});
