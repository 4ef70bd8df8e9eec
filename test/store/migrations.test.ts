import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS, openDatabase, runMigrations, StoreTooNewError, type Migration } from '../../src/store/index.js';
import { makeTempDir } from '../support/temp-dir.js';

const sha = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('migrations', () => {
  const temp = makeTempDir();
  afterAll(() => temp.cleanup());

  it('applies each step once, records it in the ledger and the schema version', () => {
    const file = path.join(temp.dir, 'a.db');
    openDatabase(file).close();
    const db = openDatabase(file);
    const ids = (db.prepare('SELECT id FROM schema_migrations ORDER BY applied_at, id').all() as Array<{ id: string }>).map((r) => r.id);
    expect(ids.sort()).toEqual(MIGRATIONS.map((m) => m.id).sort());
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    db.close();
  });

  it('leaves no partial state when a step fails', () => {
    const db = openDatabase(path.join(temp.dir, 'b.db'));
    const broken: Migration = {
      id: '9999_broken',
      up(d) {
        d.exec('CREATE TABLE half_done (x INTEGER)');
        throw new Error('boom');
      },
    };
    expect(() => runMigrations(db, [...MIGRATIONS, broken])).toThrow('boom');
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'half_done'").get()).toBeUndefined();
    expect(db.prepare("SELECT id FROM schema_migrations WHERE id = '9999_broken'").get()).toBeUndefined();
    db.close();
  });

  it('refuses a file written by a newer memtrace, naming its version, and leaves its bytes unchanged', () => {
    const file = path.join(temp.dir, 'newer.db');
    const future: Migration = { id: '9000_future', up: (d) => d.exec('CREATE TABLE future_table (x INTEGER)') };
    const db = openDatabase(file, { migrations: [...MIGRATIONS, future] });
    db.prepare("UPDATE store_meta SET value = '9.1.0' WHERE key = 'written_by'").run();
    db.close();
    const before = sha(file);
    let caught: unknown;
    try {
      openDatabase(file);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(StoreTooNewError);
    expect(String((caught as Error).message)).toContain('memtrace 9.1.0');
    expect(String((caught as Error).message)).toContain('9000_future');
    expect(sha(file)).toBe(before);
  });

  it('refuses a schema version above the code’s even without an unknown step id', () => {
    const file = path.join(temp.dir, 'version.db');
    const db = openDatabase(file);
    db.pragma(`user_version = ${MIGRATIONS.length + 5}`);
    db.close();
    const before = sha(file);
    expect(() => openDatabase(file)).toThrow(StoreTooNewError);
    expect(sha(file)).toBe(before);
  });

  it('creates the database file readable by its owner only, whatever the umask', () => {
    const old = process.umask(0o000);
    try {
      const file = path.join(temp.dir, 'private', 'm.db');
      const db = openDatabase(file);
      db.prepare('INSERT INTO store_meta (key, value) VALUES (?, ?)').run('k', 'v');
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.statSync(`${file}-wal`).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
      db.close();
    } finally {
      process.umask(old);
    }
  });
});
