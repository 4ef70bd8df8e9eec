import type Database from 'better-sqlite3';
import type { Store } from '../../store/index.js';
import { openPeerDatabase, PeerDatabaseError, peerErrorOf } from './peer-database.js';
import {
  mapObservation,
  mapSummary,
  type Invalid,
  type MappedObservation,
  type MappedSummary,
  type PeerObservationRow,
  type PeerSummaryRow,
} from './peer-record.js';
import { missingFromSchema, NEEDED_COLUMNS, presentOptional } from './peer-schema.js';
import { createProjectNames, type ProjectNames } from './project-names.js';

/**
 * `memtrace import --from claude-mem` (docs/memory.md#memory-you-already-have): the observations
 * and session summaries of claude-mem's database, read-only, into this store. Everything is
 * written in ONE transaction, so a failure at any row (a damaged page, a full disk) leaves the
 * store as it was; each record's key goes into `imported_records` in that transaction, so a
 * second run skips what the first brought. Every text passes `sanitize` (secret redaction) first.
 */
const CLAUDE_MEM_SOURCE = 'claude-mem';
const PROVENANCE = { sourceMessageIds: [] as number[], provider: CLAUDE_MEM_SOURCE, model: null, promptVersion: 'import' };
const MAX_PROBLEMS = 20;
const PROGRESS_EVERY = 1_000;
/** 128 MiB of page cache (negative: KiB) while the import's transaction is open. */
const IMPORT_CACHE_KIB = -131_072;

export interface ClaudeMemImportOptions {
  /** Count what would happen; write nothing. */
  dryRun: boolean;
  nowMs: number;
  /** Applied to every text before it is stored (secret redaction). */
  sanitize(text: string): string;
  /** Called every so many records, and at the end: records read and the total. */
  onProgress?(done: number, total: number): void;
}

export interface ClaudeMemImportReport {
  imported: number;
  skipped: number;
  invalid: number;
  observations: number;
  summaries: number;
  /** Observations whose type memtrace does not have, stored as `other`. */
  unknownTypes: number;
  total: number;
  /** The first invalid records and why. */
  problems: Array<{ key: string; reason: string }>;
  projects: ReturnType<ProjectNames['report']>;
  /** Read from a private copy (the database was in WAL mode and not in use). */
  snapshot: boolean;
}

/** The peer's session (content) id and first prompt by its memory session id, when it has sdk_sessions. */
function peerSessions(db: Database.Database, tables: ReturnType<typeof openPeerDatabase>['tables']) {
  const cols = presentOptional(tables, 'sdk_sessions');
  const out = new Map<string, { id: string; prompt: string | null }>();
  if (!cols.has('memory_session_id') || !cols.has('content_session_id')) return out;
  const prompt = cols.has('user_prompt') ? 'user_prompt' : 'NULL';
  for (const r of db
    .prepare(`SELECT memory_session_id AS m, content_session_id AS c, ${prompt} AS p FROM sdk_sessions WHERE memory_session_id IS NOT NULL`)
    .iterate() as IterableIterator<{
    m: string;
    c: string | null;
    p: string | null;
  }>) {
    out.set(r.m, { id: r.c || r.m, prompt: r.p });
  }
  return out;
}

/**
 * `openStore` is called only once the file is known to be claude-mem's, so a refused file leaves
 * no data dir behind; it may answer null (a dry run with nothing stored yet).
 */
export function importClaudeMem(openStore: () => Store | null, file: string, options: ClaudeMemImportOptions): ClaudeMemImportReport {
  const peer = openPeerDatabase(file);
  try {
    const missing = missingFromSchema(peer.tables);
    if (missing) throw new PeerDatabaseError('not_claude_mem', `${file} is not a claude-mem database (${missing})`);
    return run(openStore(), peer, options);
  } catch (error) {
    // A failure writing this store (a full disk) is that, not a fault of the file read.
    if (error instanceof LocalWriteError) throw error.cause;
    throw peerErrorOf(error, file);
  } finally {
    peer.close();
  }
}

class LocalWriteError extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

function run(store: Store | null, peer: ReturnType<typeof openPeerDatabase>, options: ClaudeMemImportOptions): ClaudeMemImportReport {
  const { db: source, tables } = peer;
  const select = (table: 'observations' | 'session_summaries', optional: Set<string>) =>
    source.prepare(`SELECT ${[...NEEDED_COLUMNS[table], ...optional].join(', ')} FROM ${table} ORDER BY id`);
  const observations = select('observations', presentOptional(tables, 'observations'));
  const summaries = select('session_summaries', presentOptional(tables, 'session_summaries'));
  const total =
    (source.prepare('SELECT count(*) AS n FROM observations').get() as { n: number }).n +
    (source.prepare('SELECT count(*) AS n FROM session_summaries').get() as { n: number }).n;
  const sessions = peerSessions(source, tables);
  const known = store
    ? (store.db.prepare('SELECT DISTINCT project, checkout FROM sessions WHERE project IS NOT NULL').all() as Array<{
        project: string;
        checkout: string | null;
      }>)
    : [];
  const names = createProjectNames(known);
  const report: ClaudeMemImportReport = {
    imported: 0,
    skipped: 0,
    invalid: 0,
    observations: 0,
    summaries: 0,
    unknownTypes: 0,
    total,
    problems: [],
    projects: [],
    snapshot: peer.snapshot,
  };
  const seen = store ? store.db.prepare('SELECT 1 FROM imported_records WHERE source = ? AND source_key = ?') : null;
  const record = store?.db.prepare('INSERT INTO imported_records (source, source_key, kind, local_id, imported_at) VALUES (?, ?, ?, ?, ?)');
  // An imported session is a finished one; a session already known keeps its own details.
  const ensureSession = store?.db.prepare(
    "INSERT INTO sessions (session_id, project, checkout, prompt, status, created_at, updated_at, ended_at) VALUES (?, ?, ?, ?, 'ended', ?, ?, ?) ON CONFLICT (session_id) DO NOTHING",
  );
  const clean = (items: readonly string[]) => items.map(options.sanitize);
  const ensured = new Set<string>();
  let done = 0;
  const progress = () => {
    done += 1;
    if (done % PROGRESS_EVERY === 0) options.onProgress?.(done, total);
  };

  const one = (mapped: MappedObservation | MappedSummary | Invalid, kind: 'observation' | 'summary') => {
    progress();
    if (!mapped.ok) {
      report.invalid += 1;
      if (report.problems.length < MAX_PROBLEMS) report.problems.push({ key: mapped.key, reason: mapped.reason });
      return;
    }
    if (seen?.get(CLAUDE_MEM_SOURCE, mapped.key) !== undefined) {
      report.skipped += 1;
      return;
    }
    report.imported += 1;
    if (kind === 'observation') report.observations += 1;
    else report.summaries += 1;
    if ('unknownType' in mapped && mapped.unknownType) report.unknownTypes += 1;
    const where = names.map(mapped.project);
    if (options.dryRun || !store) return;
    try {
      write(mapped, kind, where);
    } catch (error) {
      throw new LocalWriteError(error);
    }
  };

  const write = (mapped: MappedObservation | MappedSummary, kind: 'observation' | 'summary', where: { project: string | null; checkout: string | null }) => {
    if (!store) return;
    const session = sessions.get(mapped.sessionKey);
    const sessionId = session?.id ?? mapped.sessionKey;
    const provenance = { ...PROVENANCE, sessionId, project: where.project, checkout: where.checkout, createdAt: mapped.createdAtMs };
    let id: number;
    if ('observation' in mapped) {
      const o = mapped.observation;
      id = store.observations.insert(
        {
          ...o,
          title: options.sanitize(o.title),
          subtitle: options.sanitize(o.subtitle),
          narrative: options.sanitize(o.narrative),
          facts: clean(o.facts),
          concepts: clean(o.concepts),
          files_read: clean(o.files_read),
          files_modified: clean(o.files_modified),
        },
        { ...provenance, discoveryTokens: mapped.discoveryTokens, agent: mapped.agent },
      );
    } else {
      const s = mapped.summary;
      id = store.summaries.insert(
        {
          request: options.sanitize(s.request),
          investigated: options.sanitize(s.investigated),
          learned: options.sanitize(s.learned),
          completed: options.sanitize(s.completed),
          next_steps: options.sanitize(s.next_steps),
          notes: options.sanitize(s.notes),
        },
        provenance,
      );
    }
    record!.run(CLAUDE_MEM_SOURCE, mapped.key, kind, id, options.nowMs);
    if (ensured.has(sessionId)) return;
    ensured.add(sessionId);
    const prompt = session?.prompt ? options.sanitize(session.prompt) : null;
    ensureSession!.run(sessionId, where.project, where.checkout, prompt, mapped.createdAtMs, options.nowMs, mapped.createdAtMs);
  };

  const readAll = () => {
    for (const row of observations.iterate() as IterableIterator<PeerObservationRow>) one(mapObservation(row), 'observation');
    for (const row of summaries.iterate() as IterableIterator<PeerSummaryRow>) one(mapSummary(row), 'summary');
  };
  if (options.dryRun || !store) readAll();
  else {
    // One transaction of many rows: a larger page cache keeps SQLite from spilling them to the WAL before the commit.
    const cacheSize = store.db.pragma('cache_size', { simple: true });
    store.db.pragma(`cache_size = ${IMPORT_CACHE_KIB}`);
    try {
      store.db.transaction(readAll).immediate();
    } finally {
      store.db.pragma(`cache_size = ${Number(cacheSize)}`);
    }
  }
  options.onProgress?.(done, total);
  report.projects = names.report();
  return report;
}
