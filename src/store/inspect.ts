import fs from 'node:fs';
import { checkSchema } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';
import { createObserverCalls } from './observer-calls.js';
import { sqliteDriver, SqliteDriverError } from './sqlite-driver.js';

/** What `memtrace doctor` learns of the store, read-only: never created, migrated or written. */
export type StoreInspection =
  | { state: 'missing' }
  /** The SQLite driver cannot load (a package manager skipped its build): the exact fix. */
  | { state: 'no_driver'; reason: string; fix: string }
  | { state: 'too_new'; writtenBy: string | null; unknownSteps: string[] }
  | { state: 'unreadable'; error: string }
  | {
      state: 'ok';
      writtenBy: string | null;
      pendingSteps: number;
      quickCheck: string[];
      bytes: number;
      spendToday: { day: string; calls: number; tokens: number; costUsd: number | null } | null;
    };

export function inspectStore(file: string, today: string): StoreInspection {
  let Driver: ReturnType<typeof sqliteDriver>;
  try {
    Driver = sqliteDriver();
  } catch (error) {
    if (error instanceof SqliteDriverError) return { state: 'no_driver', reason: error.reason, fix: error.fix };
    return { state: 'unreadable', error: error instanceof Error ? error.message : String(error) };
  }
  if (!fs.existsSync(file)) return { state: 'missing' };
  let db: InstanceType<typeof Driver>;
  try {
    db = new Driver(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    return { state: 'unreadable', error: error instanceof Error ? error.message : String(error) };
  }
  try {
    const schema = checkSchema(db, MIGRATIONS);
    if (!schema.compatible) return { state: 'too_new', writtenBy: schema.writtenBy, unknownSteps: schema.unknownSteps };
    const applied = Number(db.pragma('user_version', { simple: true }));
    const quickCheck = (db.pragma('quick_check') as Array<{ quick_check: string }>).map((r) => r.quick_check);
    return {
      state: 'ok',
      writtenBy: schema.writtenBy,
      pendingSteps: MIGRATIONS.length - applied,
      quickCheck,
      bytes: fileBytes(file),
      spendToday: spendOn(db, today),
    };
  } catch (error) {
    // Not a database, or damaged past reading its header: what SQLite says is the finding.
    return { state: 'unreadable', error: error instanceof Error ? error.message : String(error) };
  } finally {
    db.close();
  }
}

function spendOn(db: Parameters<typeof createObserverCalls>[0], day: string) {
  try {
    const found = createObserverCalls(db)
      .byDay(7)
      .find((d) => d.day === day);
    return found ? { day, calls: found.calls, tokens: found.counted, costUsd: found.costUsd } : { day, calls: 0, tokens: 0, costUsd: null };
  } catch {
    return null; // an older store without the ledger: its next start adds it
  }
}

/** The database and its WAL: what the file system holds for it. */
function fileBytes(file: string): number {
  let bytes = 0;
  for (const f of [file, `${file}-wal`]) {
    try {
      bytes += fs.statSync(f).size;
    } catch {
      // no WAL: nothing to add
    }
  }
  return bytes;
}
