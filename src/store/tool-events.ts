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
  createdAt: number;
}

export type ToolEvents = ReturnType<typeof createToolEvents>;

/** The tool events a session delivered (written at enqueue, in the queue's transaction). */
export function createToolEvents(db: Database.Database) {
  const bySession = db.prepare('SELECT files_written, files_read FROM tool_events WHERE session_id = ?');
  const byIds = db.prepare('SELECT * FROM tool_events WHERE queue_id IN (SELECT value FROM json_each(?)) ORDER BY queue_id');
  const toRow = (r: Record<string, unknown>): ToolEventRow => ({
    queueId: r.queue_id as number,
    sessionId: r.session_id as string,
    toolUseId: r.tool_use_id as string | null,
    toolName: r.tool_name as string,
    inputPreview: r.input_preview as string,
    failed: r.failed === 1,
    filesWritten: JSON.parse(r.files_written as string) as string[],
    filesRead: JSON.parse(r.files_read as string) as string[],
    createdAt: r.created_at as number,
  });
  return {
    /** Every file the session's tool events wrote or read: the evidence for file claims. */
    evidence(sessionId: string): { written: Set<string>; read: Set<string> } {
      const written = new Set<string>();
      const read = new Set<string>();
      for (const row of bySession.all(sessionId) as Array<{ files_written: string; files_read: string }>) {
        for (const p of JSON.parse(row.files_written) as string[]) written.add(p);
        for (const p of JSON.parse(row.files_read) as string[]) read.add(p);
      }
      return { written, read };
    },
    byQueueIds: (ids: readonly number[]) => (byIds.all(JSON.stringify(ids)) as Array<Record<string, unknown>>).map(toRow),
  };
}
