import { createRequire } from 'node:module';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { completeDriverBuild } from './driver-build.js';
import { driverFixCommand, isMissingAddon } from './driver-fix.js';

let driver: typeof BetterSqlite3 | null = null;

/**
 * The SQLite driver cannot load: its native build was skipped (pnpm ≥ 10, bun, `npm
 * --ignore-scripts`) or made for another Node. `fix` is the one command that completes it. Every
 * command that needs the store says this line; none takes a store it cannot open for an empty one.
 */
export class SqliteDriverError extends Error {
  constructor(
    readonly reason: string,
    readonly fix: string,
  ) {
    super(`the SQLite driver (better-sqlite3) cannot load: ${reason}. Fix: ${fix}`);
    this.name = 'SqliteDriverError';
  }
}

/**
 * better-sqlite3, loaded when a database is first opened rather than when a module importing
 * the store is: loading its native addon costs 10–17 ms, and `memtrace mcp` (which a host waits
 * for at every session start) opens its database only when a tool is first called. The addon
 * loads at the first open, so a `:memory:` open proves it; a missing build is completed once
 * (driver-build.ts) or reported with its fix (SqliteDriverError).
 */
export function sqliteDriver(): typeof BetterSqlite3 {
  if (driver) return driver;
  const require = createRequire(import.meta.url);
  const loaded = require('better-sqlite3') as typeof BetterSqlite3;
  const problem = addonProblem(loaded);
  if (problem !== null) {
    const dir = path.dirname(require.resolve('better-sqlite3/package.json'));
    // The edge of the store: this process's stderr, environment and clock.
    const build = completeDriverBuild(dir, {
      progress: (line) => process.stderr.write(`${line}\n`),
      env: process.env,
      execPath: process.execPath,
      nowMs: Date.now,
    });
    const still = build.built ? addonProblem(loaded) : problem;
    if (still !== null) throw new SqliteDriverError(build.built ? still : `${problem} (${build.why})`, driverFixCommand(dir));
  }
  driver = loaded;
  return driver;
}

/** Why the native addon does not load, or null when it does. */
function addonProblem(loaded: typeof BetterSqlite3): string | null {
  try {
    new loaded(':memory:').close();
    return null;
  } catch (error) {
    if (!isMissingAddon(error)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    return /Could not locate the bindings file/.test(message)
      ? 'its native build was skipped when it was installed'
      : `its native build does not load here (${message.split('\n')[0]})`;
  }
}
