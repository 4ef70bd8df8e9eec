import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, runMigrations, type Migration } from '../../src/store/index.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('migrations', () => {
  const temp = makeTempDir();
  afterEach(() => undefined);

  it('applies each step once and records it in the ledger', () => {
    const file = path.join(temp.dir, 'a.db');
    openDatabase(file).close();
    const db = openDatabase(file);
    const ids = (db.prepare('SELECT id FROM schema_migrations').all() as Array<{ id: string }>).map((r) => r.id);
    expect(ids).toEqual(['0001_core']);
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
    expect(() => runMigrations(db, [broken])).toThrow('boom');
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'half_done'").get()).toBeUndefined();
    expect(db.prepare("SELECT id FROM schema_migrations WHERE id = '9999_broken'").get()).toBeUndefined();
    db.close();
  });

  it('runs extra migration lists after the core ones', () => {
    const db = openDatabase(path.join(temp.dir, 'c.db'), {
      extraMigrations: [{ id: '0100_extra', up: (d) => d.exec('CREATE TABLE extra (x INTEGER)') }],
    });
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'extra'").get()).toBeDefined();
    db.close();
    temp.cleanup();
  });
});
