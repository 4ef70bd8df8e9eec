import type Database from 'better-sqlite3';

export interface ToolEventRow {
  queueId: number;
  sessionId: string;
  toolUseId: string | null;
  toolName: string;
  inputPreview: string;
  failed: boolean;
  filesWritten: string[];
  filesRead: string[];
  /** A failed call's error (its first lines) and exit code, when known. */
  error: string | null;
  exitCode: number | null;
  /** Characters of the payload the queue stored (a large output is stored shortened); null for rows older than the column. */
  payloadChars: number | null;
  createdAt: number;
  /** The subagent that made the call; null for the main agent (and rows older than the column). */
  agentId: string | null;
  agentType: string | null;
}

export type ToolEvents = ReturnType<typeof createToolEvents>;

/** The tool events a session delivered (written at enqueue, in the queue's transaction). */
export function createToolEvents(db: Database.Database) {
  const written = db.prepare('SELECT path FROM session_files_written WHERE session_id = ? AND path IN (SELECT value FROM json_each(?))');
  const byIds = db.prepare('SELECT * FROM tool_events WHERE queue_id IN (SELECT value FROM json_each(?)) ORDER BY queue_id');
  const ofSession = db.prepare('SELECT * FROM tool_events WHERE session_id = ? ORDER BY queue_id');
  const toRow = (r: Record<string, unknown>): ToolEventRow => ({
    queueId: r.queue_id as number,
    sessionId: r.session_id as string,
    toolUseId: r.tool_use_id as string | null,
    toolName: r.tool_name as string,
    inputPreview: r.input_preview as string,
    failed: r.failed === 1,
    filesWritten: JSON.parse(r.files_written as string) as string[],
    filesRead: JSON.parse(r.files_read as string) as string[],
    error: (r.error as string | null) ?? null,
    exitCode: (r.exit_code as number | null) ?? null,
    payloadChars: (r.payload_chars as number | null) ?? null,
    createdAt: r.created_at as number,
    agentId: (r.agent_id as string | null) ?? null,
    agentType: (r.agent_type as string | null) ?? null,
  });
  return {
    /** Which of these (absolute, normalised) paths a tool event of the session wrote: one indexed lookup each. */
    writtenAmong(sessionId: string, paths: readonly string[]): Set<string> {
      if (paths.length === 0) return new Set();
      return new Set((written.all(sessionId, JSON.stringify(paths)) as Array<{ path: string }>).map((r) => r.path));
    },
    byQueueIds: (ids: readonly number[]) => (byIds.all(JSON.stringify(ids)) as Array<Record<string, unknown>>).map(toRow),
    /** Every tool event the session delivered, in arrival order. */
    forSession: (sessionId: string) => (ofSession.all(sessionId) as Array<Record<string, unknown>>).map(toRow),
  };
}
