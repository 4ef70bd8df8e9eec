import type Database from 'better-sqlite3';
import { toStoredObservation, toStoredSummary, type StoredObservation, type StoredSummary } from '../store/index.js';
import type { ExportCounts, ExportFilter, ExportSink } from './export.js';
import { normalizeProject } from './search.js';
import { summarySections } from './summary-sections.js';

/**
 * The memory as a person reads it: one markdown document per project, sessions in time order,
 * each observation with its narrative, facts and files, each session summary with its parts.
 * Rendering is pure (`renderObservation`, `renderSummary`); the walk reads the store in pages.
 */
export function projectsOf(db: Database.Database, filter: ExportFilter = {}): Array<string | null> {
  const project = filter.project ? normalizeProject(filter.project) : null;
  const rows = db
    .prepare(
      `SELECT DISTINCT project FROM (SELECT project, session_id FROM observations UNION SELECT project, session_id FROM summaries)
       WHERE (@project IS NULL OR project = @project OR project = @project || '/') AND (@session IS NULL OR session_id = @session) ORDER BY project`,
    )
    .all({ project, session: filter.sessionId ?? null }) as Array<{ project: string | null }>;
  return rows.map((r) => r.project);
}

/** A file name for a project's document: its path's words joined by `-`, safe on every filesystem. */
export function projectFileName(project: string | null): string {
  if (project === null) return 'no-project.md';
  const slug = project
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(-120);
  return `${slug || 'root'}.md`;
}

const when = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/:\d\d\.\d+Z$/, ' UTC');
/** A shared project's member who made the item (docs/sharing.md). */
const fromWhom = (origin: string | null | undefined) => (origin ? ` · from ${origin.replace(/[*_`\n]/g, ' ')}` : '');
const list = (items: readonly string[]) => items.map((i) => `- ${i.replace(/\n+/g, ' ')}`).join('\n');

function renderObservation(o: StoredObservation): string {
  const parts = [`### ${o.title.replace(/\n+/g, ' ')}`, `*${o.type} · ${when(o.createdAt)} · observation ${o.id}${fromWhom(o.origin)}*`];
  if (o.subtitle) parts.push(o.subtitle);
  if (o.narrative) parts.push(o.narrative);
  if (o.facts.length > 0) parts.push(list(o.facts));
  const meta = [
    o.concepts.length > 0 ? `Concepts: ${o.concepts.join(', ')}` : '',
    o.files_modified.length > 0 ? `Files modified: ${o.files_modified.map((f) => `\`${f}\``).join(', ')}` : '',
    o.files_read.length > 0 ? `Files read: ${o.files_read.map((f) => `\`${f}\``).join(', ')}` : '',
  ].filter((m) => m !== '');
  if (meta.length > 0) parts.push(meta.join('  \n'));
  return parts.join('\n\n');
}

function renderSummary(s: StoredSummary): string {
  return [`### Session summary`, `*${when(s.createdAt)} · summary ${s.id}${fromWhom(s.origin)}*`, ...summarySections(s).map(([k, v]) => `**${k}:** ${v}`)].join(
    '\n\n',
  );
}

/** One project's document, written to `sink` item by item. */
export async function writeProjectMarkdown(
  db: Database.Database,
  project: string | null,
  filter: ExportFilter,
  sink: ExportSink,
  nowMs: number,
): Promise<ExportCounts> {
  const counts: ExportCounts = { observations: 0, summaries: 0, bytes: 0 };
  const emit = async (text: string) => {
    counts.bytes += Buffer.byteLength(text);
    await sink(text);
  };
  const items = db.prepare(`
    SELECT kind, id FROM (
      SELECT 'observation' AS kind, 0 AS kind_order, id, session_id, project, created_at FROM observations
      UNION ALL SELECT 'summary', 1, id, session_id, project, created_at FROM summaries)
    WHERE project IS @project AND (@session IS NULL OR session_id = @session)
    ORDER BY created_at, kind_order, id`);
  const observation = db.prepare('SELECT * FROM observations WHERE id = ?');
  const summary = db.prepare('SELECT * FROM summaries WHERE id = ?');
  await emit(`# Memory of ${project ?? 'no project'}\n\nExported by memtrace on ${when(nowMs)}.\n`);
  let session: string | null = null;
  for (const item of items.all({ project, session: filter.sessionId ?? null }) as Array<{ kind: 'observation' | 'summary'; id: number }>) {
    const row =
      item.kind === 'observation'
        ? toStoredObservation(observation.get(item.id) as Record<string, unknown>)
        : toStoredSummary(summary.get(item.id) as Record<string, unknown>);
    if (row.sessionId !== session) {
      session = row.sessionId;
      await emit(`\n## Session ${session} · ${when(row.createdAt)}\n`);
    }
    if (item.kind === 'observation') counts.observations += 1;
    else counts.summaries += 1;
    await emit(`\n${item.kind === 'observation' ? renderObservation(row as StoredObservation) : renderSummary(row as StoredSummary)}\n`);
  }
  return counts;
}
