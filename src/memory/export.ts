import type Database from 'better-sqlite3';
import { toStoredObservation, toStoredSummary, type StoredObservation, type StoredSummary } from '../store/index.js';
import { observationLine, summaryLine } from './portable-record.js';
import { normalizeProject } from './search.js';

export interface ExportFilter {
  project?: string | null;
  sessionId?: string | null;
}

export interface ExportCounts {
  observations: number;
  summaries: number;
  bytes: number;
}

/**
 * The rows an export holds, oldest first: observations, then session summaries. Read in id-ordered
 * pages so a large store is never held in memory at once.
 */
function* exportRows(
  db: Database.Database,
  filter: ExportFilter = {},
): Generator<{ kind: 'observation'; row: StoredObservation } | { kind: 'summary'; row: StoredSummary }> {
  const project = filter.project ? normalizeProject(filter.project) : null;
  const where = `(@project IS NULL OR project = @project OR project = @project || '/') AND (@session IS NULL OR session_id = @session) AND id > @after`;
  const pages = [
    { kind: 'observation' as const, stmt: db.prepare(`SELECT * FROM observations WHERE ${where} ORDER BY id LIMIT 500`), map: toStoredObservation },
    { kind: 'summary' as const, stmt: db.prepare(`SELECT * FROM summaries WHERE ${where} ORDER BY id LIMIT 500`), map: toStoredSummary },
  ];
  for (const page of pages) {
    let after = 0;
    for (;;) {
      const rows = page.stmt.all({ project, session: filter.sessionId ?? null, after }) as Array<Record<string, unknown> & { id: number }>;
      if (rows.length === 0) break;
      for (const row of rows)
        yield { kind: page.kind, row: page.map(row) } as { kind: 'observation'; row: StoredObservation } | { kind: 'summary'; row: StoredSummary };
      after = rows[rows.length - 1]!.id;
    }
  }
}

/** jsonl: one object per line, in the shape import reads back (docs/interfaces.md#memtrace-export-and-import). */
/** Takes one chunk of an export; resolves when the chunk may be released (a file stream drained). */
export type ExportSink = (chunk: string) => Promise<void>;

/** How many rows an export with this filter holds (for a progress bar). */
export function exportSize(db: Database.Database, filter: ExportFilter = {}): number {
  const project = filter.project ? normalizeProject(filter.project) : null;
  const where = `(@project IS NULL OR project = @project OR project = @project || '/') AND (@session IS NULL OR session_id = @session)`;
  const params = { project, session: filter.sessionId ?? null };
  const count = (table: string) => Number(db.prepare(`SELECT count(*) FROM ${table} WHERE ${where}`).pluck().get(params));
  return count('observations') + count('summaries');
}

/** `onRow`: called after each row is written (a progress bar). */
export async function writeJsonl(db: Database.Database, filter: ExportFilter, sink: ExportSink, onRow?: () => void): Promise<ExportCounts> {
  const counts: ExportCounts = { observations: 0, summaries: 0, bytes: 0 };
  let buffer = '';
  for (const item of exportRows(db, filter)) {
    onRow?.();
    buffer += `${JSON.stringify(item.kind === 'observation' ? observationLine(item.row) : summaryLine(item.row))}\n`;
    if (item.kind === 'observation') counts.observations += 1;
    else counts.summaries += 1;
    if (buffer.length >= 1 << 16) {
      counts.bytes += Buffer.byteLength(buffer);
      await sink(buffer);
      buffer = '';
    }
  }
  counts.bytes += Buffer.byteLength(buffer);
  if (buffer !== '') await sink(buffer);
  return counts;
}

/** A sink over a file stream: waits for 'drain' when its buffer is full; write errors reject. */
export function streamSink(out: NodeJS.WritableStream): ExportSink {
  let failure: Error | null = null;
  out.on('error', (error: Error) => (failure = error));
  return (chunk) =>
    new Promise((resolve, reject) => {
      if (failure) return reject(failure);
      if (out.write(chunk)) resolve();
      else out.once('drain', () => (failure ? reject(failure) : resolve()));
    });
}
