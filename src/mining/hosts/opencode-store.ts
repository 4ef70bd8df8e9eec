import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { sqliteDriver } from '../../store/sqlite-driver.js';
import type { TranscriptTarget } from '../transcript-target.js';
import { openCodeSessionRef } from './host-transcripts.js';
import type { OpenCodePartRow } from './opencode-session.js';

/**
 * OpenCode's SQLite store (`~/.local/share/opencode/opencode.db`, AGENT-HOSTS-2.md §2.6), read
 * in place and read-only while OpenCode may be writing it (WAL: a reader never blocks its
 * writer and sees the last commit; OpenCode keeps its own `-wal` and `-shm` beside it). Each
 * top-level session is one transcript target, `<db>#<session id>`; its size is the bytes of its
 * parts (a part rewritten from `running` to `completed` changes it) and its time the latest
 * part's, so an unchanged session costs one small query.
 */
const BUSY_TIMEOUT_MS = 3_000;
/** The store's name: `opencode.db`, or `opencode-<channel>.db` for a non-release build. */
const STORE_NAME = /^opencode(?:-[A-Za-z0-9._-]+)?\.db$/;

function openReadOnly(file: string): Database.Database {
  const db = new (sqliteDriver())(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return db;
}

/** The OpenCode stores in a folder (its data folder), or the file itself when given one. */
function openCodeStoresIn(root: string): { stores: string[] } | { error: string } {
  try {
    const stat = fs.statSync(root);
    if (stat.isFile()) return { stores: [root] };
    return {
      stores: fs
        .readdirSync(root)
        .filter((name) => STORE_NAME.test(name))
        .sort()
        .map((name) => path.join(root, name)),
    };
  } catch (error) {
    return { error: (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : (error as Error).message };
  }
}

interface SessionRow {
  id: string;
  bytes: number | null;
  updated: number | null;
}

/**
 * The sessions of the stores under `root` (or of one store file), or only the named sessions
 * of each store (the ones the plugin reported). A child session (a subagent) is part of its
 * root session's target.
 */
export async function discoverOpenCodeSessions(
  root: string,
  only?: ReadonlyArray<{ store: string; sessionId: string }>,
): Promise<{ targets: TranscriptTarget[]; problems: Array<{ path: string; error: string }> }> {
  const problems: Array<{ path: string; error: string }> = [];
  const targets: TranscriptTarget[] = [];
  const wanted = new Map<string, Set<string>>();
  for (const { store, sessionId } of only ?? []) wanted.set(store, (wanted.get(store) ?? new Set()).add(sessionId));
  let stores: string[];
  if (only) stores = [...wanted.keys()];
  else {
    const found = openCodeStoresIn(root);
    if ('error' in found) return { targets, problems: [{ path: root, error: found.error }] };
    stores = found.stores;
  }
  for (const store of stores) {
    let db: Database.Database | null = null;
    try {
      db = openReadOnly(store);
      const rows = db
        .prepare(
          `SELECT s.id AS id, sum(length(p.data)) AS bytes, max(max(p.time_updated), s.time_updated) AS updated
             FROM session s LEFT JOIN session c ON c.parent_id = s.id
             LEFT JOIN part p ON p.session_id = s.id OR p.session_id = c.id
            WHERE s.parent_id IS NULL GROUP BY s.id`,
        )
        .all() as SessionRow[];
      const ids = wanted.get(store);
      for (const row of rows) {
        if (ids && !ids.has(row.id)) continue;
        targets.push({ path: openCodeSessionRef(store, row.id), sessionId: row.id, size: row.bytes ?? 0, mtimeMs: row.updated ?? 0, host: 'opencode' });
      }
    } catch (error) {
      // A store that went away between listing and opening is not a problem to report.
      if (fs.existsSync(store)) problems.push({ path: store, error: (error as Error).message });
    } finally {
      db?.close();
    }
  }
  return { targets, problems };
}

/** One session's row and its parts (its children's too), oldest first; null when the session is not in the store. */
export function readOpenCodeStoreSession(
  store: string,
  sessionId: string,
): { session: { id: string; directory: string | null }; parts: OpenCodePartRow[] } | null {
  const db = openReadOnly(store);
  try {
    const session = db.prepare('SELECT id, directory FROM session WHERE id = ?').get(sessionId) as { id: string; directory: string | null } | undefined;
    if (!session) return null;
    const parts = db
      .prepare(
        `SELECT p.id AS id, p.message_id AS messageId, p.session_id AS sessionId, json_extract(m.data, '$.role') AS role,
                p.time_created AS timeCreated, p.data AS data
           FROM part p LEFT JOIN message m ON m.id = p.message_id
          WHERE p.session_id = ? OR p.session_id IN (SELECT id FROM session WHERE parent_id = ?)
          ORDER BY p.time_created, p.id`,
      )
      .all(sessionId, sessionId) as OpenCodePartRow[];
    return { session, parts };
  } finally {
    db.close();
  }
}
