import type Database from 'better-sqlite3';

export interface SessionRow {
  sessionId: string;
  project: string | null;
  prompt: string | null;
  platform: string | null;
  status: 'active' | 'ended';
  createdAt: number;
  updatedAt: number;
  endedAt: number | null;
}

export interface SessionInit {
  sessionId: string;
  project?: string | null;
  prompt?: string | null;
  platform?: string | null;
  nowMs: number;
}

export type Sessions = ReturnType<typeof createSessions>;

export function createSessions(db: Database.Database) {
  // The first non-null project/prompt/platform wins: later hooks may omit them.
  const upsert = db.prepare(`
    INSERT INTO sessions (session_id, project, prompt, platform, status, created_at, updated_at)
    VALUES (@sessionId, @project, @prompt, @platform, 'active', @nowMs, @nowMs)
    ON CONFLICT (session_id) DO UPDATE SET
      project = coalesce(sessions.project, excluded.project),
      prompt = coalesce(sessions.prompt, excluded.prompt),
      platform = coalesce(sessions.platform, excluded.platform),
      status = 'active',
      ended_at = NULL,
      updated_at = excluded.updated_at`);
  const select = db.prepare('SELECT * FROM sessions WHERE session_id = ?');
  const endStmt = db.prepare("UPDATE sessions SET status = 'ended', ended_at = ?, updated_at = ? WHERE session_id = ?");
  const active = db.prepare("SELECT * FROM sessions WHERE status = 'active' ORDER BY created_at");

  return {
    init(input: SessionInit): void {
      upsert.run({
        sessionId: input.sessionId,
        project: input.project ?? null,
        prompt: input.prompt ?? null,
        platform: input.platform ?? null,
        nowMs: input.nowMs,
      });
    },
    get(sessionId: string): SessionRow | null {
      const row = select.get(sessionId) as Record<string, unknown> | undefined;
      return row ? toSession(row) : null;
    },
    end: (sessionId: string, nowMs: number) => endStmt.run(nowMs, nowMs, sessionId).changes === 1,
    listActive: () => (active.all() as Array<Record<string, unknown>>).map(toSession),
  };
}

function toSession(row: Record<string, unknown>): SessionRow {
  return {
    sessionId: row.session_id as string,
    project: row.project as string | null,
    prompt: row.prompt as string | null,
    platform: row.platform as string | null,
    status: row.status as 'active' | 'ended',
    createdAt: row.created_at as number,
    updatedAt: row.updated_at as number,
    endedAt: row.ended_at as number | null,
  };
}
