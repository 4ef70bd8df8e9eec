import type Database from 'better-sqlite3';
import type { ParsedSummary } from '../observer/types.js';
import type { Provenance } from './observations.js';

export interface StoredSummary extends ParsedSummary {
  id: number;
  sessionId: string;
  project: string | null;
  level: 'normal' | 'aggressive' | 'fallback';
  createdAt: number;
}

export type Summaries = ReturnType<typeof createSummaries>;

export function createSummaries(db: Database.Database) {
  const insert = db.prepare(`
    INSERT INTO summaries (session_id, project, request, investigated, learned, completed, next_steps, notes,
      source_message_ids, provider, model, prompt_version, created_at)
    VALUES (@sessionId, @project, @request, @investigated, @learned, @completed, @next_steps, @notes,
      @sourceMessageIds, @provider, @model, @promptVersion, @createdAt)`);
  const latest = db.prepare('SELECT * FROM summaries WHERE project IS ? ORDER BY created_at DESC, id DESC LIMIT 1');
  const countStmt = db.prepare('SELECT count(*) AS n FROM summaries');

  return {
    insert(summary: ParsedSummary, provenance: Omit<Provenance, 'discoveryTokens'>): number {
      return Number(insert.run({ ...summary, ...provenance, sourceMessageIds: JSON.stringify(provenance.sourceMessageIds) }).lastInsertRowid);
    },
    latestForProject(project: string | null): StoredSummary | null {
      const row = latest.get(project) as Record<string, unknown> | undefined;
      if (!row) return null;
      return {
        id: row.id as number,
        sessionId: row.session_id as string,
        project: row.project as string | null,
        request: row.request as string,
        investigated: row.investigated as string,
        learned: row.learned as string,
        completed: row.completed as string,
        next_steps: row.next_steps as string,
        notes: row.notes as string,
        level: row.level as StoredSummary['level'],
        createdAt: row.created_at as number,
      };
    },
    count: () => (countStmt.get() as { n: number }).n,
  };
}
