import type Database from 'better-sqlite3';

/** One schema step. Steps are applied in list order, each in its own transaction with its ledger row. */
export interface Migration {
  id: string;
  up(db: Database.Database): void;
}

/** A database file written by a newer memtrace: refused, never opened for writing. */
export class StoreTooNewError extends Error {
  constructor(
    readonly file: string,
    readonly writtenBy: string | null,
    readonly unknownSteps: readonly string[],
  ) {
    super(
      `${file} was written by ${writtenBy ? `memtrace ${writtenBy}` : 'a newer memtrace'} (schema steps this version does not know: ${unknownSteps.join(', ')}); upgrade memtrace or point MEMTRACE_DATA_DIR elsewhere. The file was not changed.`,
    );
    this.name = 'StoreTooNewError';
  }
}

export interface SchemaCheck {
  compatible: boolean;
  unknownSteps: string[];
  writtenBy: string | null;
}

/**
 * Reads the ledger without writing: a step id this code does not list, or a schema version
 * above the code's, means a newer memtrace owns the file.
 */
export function checkSchema(db: Database.Database, migrations: readonly Migration[]): SchemaCheck {
  const hasLedger = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined;
  if (!hasLedger) return { compatible: true, unknownSteps: [], writtenBy: null };
  const known = new Set(migrations.map((m) => m.id));
  const unknownSteps = (db.prepare('SELECT id FROM schema_migrations ORDER BY id').all() as Array<{ id: string }>)
    .map((r) => r.id)
    .filter((id) => !known.has(id));
  const fileVersion = Number(db.pragma('user_version', { simple: true }));
  if (fileVersion > migrations.length) unknownSteps.push(`schema version ${fileVersion} > ${migrations.length}`);
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'store_meta'").get() !== undefined;
  const writtenBy = hasMeta
    ? ((db.prepare("SELECT value FROM store_meta WHERE key = 'written_by'").get() as { value: string } | undefined)?.value ?? null)
    : null;
  return { compatible: unknownSteps.length === 0, unknownSteps, writtenBy };
}

/**
 * Applies missing steps; `user_version` records how many steps the file has. Processes that open
 * a new or older file at once (a worker starting while a hook spools, two hooks) each find steps
 * missing: every step is taken under the write lock and skipped there if another process applied
 * it meanwhile, so a step never runs twice (adding a column twice fails).
 */
export function runMigrations(db: Database.Database, migrations: readonly Migration[]): string[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const applied = new Set((db.prepare('SELECT id FROM schema_migrations').all() as Array<{ id: string }>).map((r) => r.id));
  const isApplied = db.prepare('SELECT 1 FROM schema_migrations WHERE id = ?');
  const record = db.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)');
  const ran: string[] = [];
  migrations.forEach((migration, index) => {
    if (applied.has(migration.id)) return;
    const took = db
      .transaction(() => {
        if (isApplied.get(migration.id) !== undefined) return false;
        migration.up(db);
        record.run(migration.id, Date.now());
        db.pragma(`user_version = ${index + 1}`);
        return true;
      })
      .immediate();
    if (took) ran.push(migration.id);
  });
  return ran;
}
