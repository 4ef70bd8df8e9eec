/**
 * The tables and columns of claude-mem's database (its public schema, `~/.claude-mem/claude-mem.db`)
 * that an import reads. Pure. Needed columns must all be there, or the file is refused with one
 * line naming what is missing; optional ones are read when present.
 */
export const NEEDED_COLUMNS = {
  observations: [
    'id',
    'memory_session_id',
    'project',
    'type',
    'title',
    'subtitle',
    'narrative',
    'facts',
    'concepts',
    'files_read',
    'files_modified',
    'created_at',
    'created_at_epoch',
  ],
  session_summaries: [
    'id',
    'memory_session_id',
    'project',
    'request',
    'investigated',
    'learned',
    'completed',
    'next_steps',
    'notes',
    'created_at',
    'created_at_epoch',
  ],
} as const;

/** Read when the database has them: older text-only rows, subagents, worktree merges, the session table. */
export const OPTIONAL_COLUMNS = {
  observations: ['text', 'agent_type', 'agent_id', 'merged_into_project', 'discovery_tokens'],
  session_summaries: ['merged_into_project'],
  sdk_sessions: ['memory_session_id', 'content_session_id', 'user_prompt'],
} as const;

export type PeerTable = keyof typeof NEEDED_COLUMNS;

/** What one database has: each table's column names. */
export type TableColumns = ReadonlyMap<string, ReadonlySet<string>>;

/** Null when every needed table and column is there, else what is missing, for a one-line error. */
export function missingFromSchema(tables: TableColumns): string | null {
  const absent = (Object.keys(NEEDED_COLUMNS) as PeerTable[]).filter((t) => !tables.has(t));
  if (absent.length > 0) return `no table ${absent.join(' or ')}`;
  for (const table of Object.keys(NEEDED_COLUMNS) as PeerTable[]) {
    const have = tables.get(table)!;
    const missing = NEEDED_COLUMNS[table].filter((c) => !have.has(c));
    if (missing.length > 0) return `table ${table} has no column ${missing.join(', ')}`;
  }
  return null;
}

/** The optional columns of a table the database has. */
export function presentOptional(tables: TableColumns, table: keyof typeof OPTIONAL_COLUMNS): Set<string> {
  const have = tables.get(table);
  return new Set(have ? OPTIONAL_COLUMNS[table].filter((c) => have.has(c)) : []);
}
