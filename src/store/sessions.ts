import type Database from 'better-sqlite3';

export interface SessionRow {
  sessionId: string;
  project: string | null;
  /** The session's first prompt; every prompt is in session_prompts. */
  prompt: string | null;
  platform: string | null;
  cwd: string | null;
  /** The checkout the session ran in (a worktree's root, or the main checkout); the project is its repository. */
  checkout: string | null;
  transcriptPath: string | null;
  source: string | null;
  status: 'active' | 'ended';
  endReason: string | null;
  createdAt: number;
  updatedAt: number;
  endedAt: number | null;
}

export interface SessionInit {
  sessionId: string;
  project?: string | null;
  prompt?: string | null;
  promptId?: string | null;
  platform?: string | null;
  cwd?: string | null;
  checkout?: string | null;
  transcriptPath?: string | null;
  source?: string | null;
  nowMs: number;
}

export type Sessions = ReturnType<typeof createSessions>;

export function createSessions(db: Database.Database) {
  // The first non-null value wins for what describes the session; the transcript path follows
  // the latest hook (a resumed session may write a new file).
  const upsert = db.prepare(`
    INSERT INTO sessions (session_id, project, prompt, platform, cwd, checkout, transcript_path, source, status, created_at, updated_at)
    VALUES (@sessionId, @project, @prompt, @platform, @cwd, @checkout, @transcriptPath, @source, 'active', @nowMs, @nowMs)
    ON CONFLICT (session_id) DO UPDATE SET
      project = coalesce(sessions.project, excluded.project),
      prompt = coalesce(sessions.prompt, excluded.prompt),
      platform = coalesce(sessions.platform, excluded.platform),
      cwd = coalesce(sessions.cwd, excluded.cwd),
      checkout = coalesce(sessions.checkout, excluded.checkout),
      transcript_path = coalesce(excluded.transcript_path, sessions.transcript_path),
      source = coalesce(excluded.source, sessions.source),
      status = 'active',
      ended_at = NULL,
      end_reason = NULL,
      updated_at = excluded.updated_at`);
  const addPrompt = db.prepare('INSERT OR IGNORE INTO session_prompts (session_id, prompt_id, prompt, created_at) VALUES (?, ?, ?, ?)');
  const prompts = db.prepare('SELECT prompt_id, prompt, created_at FROM session_prompts WHERE session_id = ? ORDER BY id');
  const latestPrompt = db.prepare('SELECT prompt FROM session_prompts WHERE session_id = ? ORDER BY id DESC LIMIT 1');
  const select = db.prepare('SELECT * FROM sessions WHERE session_id = ?');
  const known = db.prepare('SELECT 1 FROM sessions WHERE session_id = ?').pluck();
  const endStmt = db.prepare(
    "UPDATE sessions SET status = 'ended', ended_at = ?, updated_at = ?, end_reason = ?, transcript_path = coalesce(?, transcript_path) WHERE session_id = ?",
  );
  const active = db.prepare("SELECT * FROM sessions WHERE status = 'active' ORDER BY created_at");

  return {
    init(input: SessionInit): void {
      upsert.run({
        sessionId: input.sessionId,
        project: input.project ?? null,
        prompt: input.prompt ?? null,
        platform: input.platform ?? null,
        cwd: input.cwd ?? null,
        checkout: input.checkout ?? null,
        transcriptPath: input.transcriptPath ?? null,
        source: input.source ?? null,
        nowMs: input.nowMs,
      });
      if (input.prompt) addPrompt.run(input.sessionId, input.promptId ?? null, input.prompt, input.nowMs);
    },
    /** Whether the session has a row (every hook event asks; no row is read). */
    exists: (sessionId: string): boolean => known.get(sessionId) !== undefined,
    get(sessionId: string): SessionRow | null {
      const row = select.get(sessionId) as Record<string, unknown> | undefined;
      return row ? toSession(row) : null;
    },
    prompts: (sessionId: string) => prompts.all(sessionId) as Array<{ prompt_id: string | null; prompt: string; created_at: number }>,
    /** The prompt the agent is working on now (the observer prompt's "user request"). */
    latestPrompt: (sessionId: string) => (latestPrompt.get(sessionId) as { prompt: string } | undefined)?.prompt ?? null,
    end: (sessionId: string, nowMs: number, details: { reason?: string | null; transcriptPath?: string | null } = {}) =>
      endStmt.run(nowMs, nowMs, details.reason ?? null, details.transcriptPath ?? null, sessionId).changes === 1,
    listActive: () => (active.all() as Array<Record<string, unknown>>).map(toSession),
  };
}

function toSession(row: Record<string, unknown>): SessionRow {
  return {
    sessionId: row.session_id as string,
    project: row.project as string | null,
    prompt: row.prompt as string | null,
    platform: row.platform as string | null,
    cwd: (row.cwd as string | null) ?? null,
    checkout: (row.checkout as string | null) ?? null,
    transcriptPath: (row.transcript_path as string | null) ?? null,
    source: (row.source as string | null) ?? null,
    status: row.status as 'active' | 'ended',
    endReason: (row.end_reason as string | null) ?? null,
    createdAt: row.created_at as number,
    updatedAt: row.updated_at as number,
    endedAt: row.ended_at as number | null,
  };
}
