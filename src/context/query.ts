import type Database from 'better-sqlite3';
import type { ContextObservation, ContextSummary } from './render.js';

/** A bounded window of recent candidates: selection cost never grows with the table. */
export const CANDIDATE_WINDOW = 300;

export function createContextQuery(db: Database.Database) {
  const observations = db.prepare(`
    SELECT id, type, title, subtitle, facts, files_modified, created_at, discovery_tokens
    FROM observations WHERE project IS ? ORDER BY created_at DESC, id DESC LIMIT ?`);
  const summary = db.prepare(`
    SELECT request, learned, completed, next_steps, created_at
    FROM summaries WHERE project IS ? AND level != 'fallback' ORDER BY created_at DESC, id DESC LIMIT 1`);
  return {
    candidates(project: string | null): ContextObservation[] {
      return (observations.all(project, CANDIDATE_WINDOW) as Array<Record<string, unknown>>).map((row) => ({
        id: row.id as number,
        type: row.type as ContextObservation['type'],
        title: row.title as string,
        subtitle: row.subtitle as string,
        facts: JSON.parse(row.facts as string) as string[],
        filesModified: JSON.parse(row.files_modified as string) as string[],
        createdAt: row.created_at as number,
        discoveryTokens: row.discovery_tokens as number | null,
      }));
    },
    lastSummary(project: string | null): ContextSummary | null {
      const row = summary.get(project) as Record<string, unknown> | undefined;
      if (!row) return null;
      return {
        request: row.request as string,
        learned: row.learned as string,
        completed: row.completed as string,
        next_steps: row.next_steps as string,
        createdAt: row.created_at as number,
      };
    },
  };
}

export type ContextQuery = ReturnType<typeof createContextQuery>;
