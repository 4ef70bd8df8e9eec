import { afterEach, describe, expect, it } from 'vitest';
import { briefTransactions, isStoreBusy, lockWaits, openDatabase, patientWrites, STORE_BUSY_WAIT_MS } from '../../src/store/index.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('a brief transaction', () => {
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(() => temp.cleanup());

  it('gives up with busy while another connection holds the write lock, having run nothing, and keeps the usual wait for other writes', () => {
    temp = makeTempDir();
    const file = `${temp.dir}/store.db`;
    const db = openDatabase(file);
    const other = openDatabase(file);
    try {
      const brief = briefTransactions(db, 5, STORE_BUSY_WAIT_MS);
      // The wait in force inside is the brief one, from the first call on (SQLite sets it when it compiles the pragma).
      expect(brief(() => db.pragma('busy_timeout', { simple: true }))).toBe(5);
      expect(brief(() => db.pragma('busy_timeout', { simple: true }))).toBe(5);
      expect(brief(() => db.prepare("INSERT INTO store_meta (key, value) VALUES ('first', '1')").run().changes)).toBe(1);

      other.exec('BEGIN IMMEDIATE');
      let ran = false;
      let thrown: unknown = null;
      try {
        brief(() => {
          ran = true;
        });
      } catch (error) {
        thrown = error;
      }
      expect(isStoreBusy(thrown)).toBe(true);
      expect(ran).toBe(false);
      expect(db.pragma('busy_timeout', { simple: true })).toBe(STORE_BUSY_WAIT_MS);
      other.exec('COMMIT');

      // A throw inside the transaction rolls it back and still puts the usual wait back.
      expect(() =>
        brief(() => {
          db.prepare("INSERT INTO store_meta (key, value) VALUES ('second', '2')").run();
          throw new Error('the caller’s own failure');
        }),
      ).toThrow('the caller’s own failure');
      expect(db.prepare("SELECT count(*) AS n FROM store_meta WHERE key = 'second'").get()).toEqual({ n: 0 });
      expect(db.pragma('busy_timeout', { simple: true })).toBe(STORE_BUSY_WAIT_MS);
    } finally {
      other.close();
      db.close();
    }
  });

  it('tells busy from every other failure', () => {
    expect(isStoreBusy({ code: 'SQLITE_BUSY' })).toBe(true);
    expect(isStoreBusy({ code: 'SQLITE_BUSY_SNAPSHOT' })).toBe(true);
    expect(isStoreBusy({ code: 'SQLITE_FULL' })).toBe(false);
    expect(isStoreBusy(new Error('SQLITE_BUSY'))).toBe(false);
    expect(isStoreBusy(null)).toBe(false);
  });
});

describe('patient writes', () => {
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(() => temp.cleanup());

  it('try again after a rest while another connection holds the lock, and give up with busy past their bound', async () => {
    temp = makeTempDir();
    const file = `${temp.dir}/store.db`;
    const db = openDatabase(file);
    const other = openDatabase(file);
    try {
      let now = 0;
      const rests: number[] = [];
      const write = patientWrites(lockWaits(db, 1, STORE_BUSY_WAIT_MS), {
        retryMs: 25,
        giveUpMs: 100,
        nowMs: () => now,
        sleep: async (ms) => {
          rests.push(ms);
          now += ms;
          // The other writer commits during the second rest.
          if (rests.length === 2) other.exec('COMMIT');
        },
      });
      other.exec('BEGIN IMMEDIATE');
      const changes = await write(() => db.prepare("INSERT INTO store_meta (key, value) VALUES ('patient', '1')").run().changes);
      expect(changes).toBe(1);
      expect(rests).toEqual([25, 25]);

      other.exec('BEGIN IMMEDIATE');
      let thrown: unknown = null;
      await write(() => db.prepare("INSERT INTO store_meta (key, value) VALUES ('never', '1')").run()).catch((error: unknown) => {
        thrown = error;
      });
      expect(isStoreBusy(thrown)).toBe(true);
      expect(db.prepare("SELECT count(*) AS n FROM store_meta WHERE key = 'never'").get()).toEqual({ n: 0 });
      other.exec('ROLLBACK');
    } finally {
      other.close();
      db.close();
    }
  });
});
