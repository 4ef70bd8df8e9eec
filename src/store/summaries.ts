import type Database from 'better-sqlite3';
import type { ParsedSummary } from '../vocabulary/observation.js';
import type { Provenance } from './observations.js';
import { createSearchIndex } from './search-index.js';

export interface StoredSummary extends ParsedSummary {
  id: number;
  sessionId: string;
  project: string | null;
  level: 'normal' | 'aggressive' | 'fallback';
  createdAt: number;
  /** The checkout the session ran in (see StoredObservation.checkout). */
  checkout?: string | null;
  /** The label of the member who made it in a shared project; null when made on this machine. */
  origin?: string | null;
  provider?: string;
  model?: string | null;
  promptVersion?: string;
  sourceMessageIds?: number[];
  claims?: unknown[];
}

export type Summaries = ReturnType<typeof createSummaries>;

export function createSummaries(db: Database.Database) {
  const insert = db.prepare(`
    INSERT INTO summaries (id, session_id, project, request, investigated, learned, completed, next_steps, notes,
      source_message_ids, provider, model, prompt_version, created_at, claims, checkout, origin)
    VALUES (@id, @sessionId, @project, @request, @investigated, @learned, @completed, @next_steps, @notes,
      @sourceMessageIds, @provider, @model, @promptVersion, @createdAt, @claims,
      coalesce(@checkout, (SELECT checkout FROM sessions WHERE session_id = @sessionId)), @origin)`);
  const latest = db.prepare('SELECT * FROM summaries WHERE project IS ? ORDER BY created_at DESC, id DESC LIMIT 1');
  const countStmt = db.prepare('SELECT count(*) AS n FROM summaries');
  const byId = db.prepare('SELECT * FROM summaries WHERE id = ?');
  const bySession = db.prepare('SELECT * FROM summaries WHERE session_id = ? ORDER BY id');
  const searchIndex = createSearchIndex(db);

  return {
    /** `id`: an imported row keeps its id; null takes the next one. Indexed for search in the caller's transaction. */
    insert(summary: ParsedSummary, provenance: Omit<Provenance, 'discoveryTokens'>, claims: readonly unknown[] = [], id: number | null = null): number {
      const { request, investigated, learned, completed, next_steps, notes } = summary;
      const rowid = Number(
        insert.run({
          id,
          request,
          investigated,
          learned,
          completed,
          next_steps,
          notes,
          ...provenance,
          checkout: provenance.checkout ?? null,
          origin: provenance.origin ?? null,
          claims: JSON.stringify(claims),
          sourceMessageIds: JSON.stringify(provenance.sourceMessageIds),
        }).lastInsertRowid,
      );
      searchIndex.addSummary(rowid, summary);
      return rowid;
    },
    get(id: number): StoredSummary | null {
      const row = byId.get(id) as Record<string, unknown> | undefined;
      return row ? toStoredSummary(row) : null;
    },
    latestForProject(project: string | null): StoredSummary | null {
      const row = latest.get(project) as Record<string, unknown> | undefined;
      return row ? toStoredSummary(row) : null;
    },
    forSession: (sessionId: string) => (bySession.all(sessionId) as Array<Record<string, unknown>>).map(toStoredSummary),
    count: () => (countStmt.get() as { n: number }).n,
  };
}

export function toStoredSummary(row: Record<string, unknown>): StoredSummary {
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
    checkout: (row.checkout as string | null) ?? null,
    origin: (row.origin as string | null | undefined) ?? null,
    provider: row.provider as string,
    model: row.model as string | null,
    promptVersion: row.prompt_version as string,
    sourceMessageIds: JSON.parse(String(row.source_message_ids)) as number[],
    claims: typeof row.claims === 'string' ? (JSON.parse(row.claims) as unknown[]) : [],
  };
}
