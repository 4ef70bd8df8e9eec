import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

let driver: typeof BetterSqlite3 | null = null;

/**
 * better-sqlite3, loaded when a database is first opened rather than when a module importing
 * the store is: loading its native addon costs 10–17 ms, and `memtrace mcp` (which a host waits
 * for at every session start) opens its database only when a tool is first called.
 */
export function sqliteDriver(): typeof BetterSqlite3 {
  driver ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  return driver;
}
