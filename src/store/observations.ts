import type Database from 'better-sqlite3';
import type { ObservationType, ParsedObservation } from '../vocabulary/observation.js';
import { createSearchIndex } from './search-index.js';

/** Where an observation came from: enough to trace any claim back to its input. */
export interface Provenance {
  sessionId: string;
  project: string | null;
  sourceMessageIds: number[];
  provider: string;
  model: string | null;
  promptVersion: string;
  discoveryTokens: number | null;
  createdAt: number;
  /**
   * The checkout it was made in (a worktree's root, or the main checkout). Left out, it is the
   * session's (sessions.checkout): the observer's turns need not know it.
   */
  checkout?: string | null;
  /**
   * The subagent that made it (null: the main agent). Left out, it is the subagent whose tool
   * events it came from, when every source event is that one subagent's.
   */
  agent?: { id: string; type: string | null } | null;
  /** Who made it, when another member of a shared project did (docs/sharing.md); null or left out: this machine. */
  origin?: string | null;
}

export interface StoredObservation extends ParsedObservation, Omit<Provenance, 'agent' | 'origin'> {
  id: number;
  /** The label of the member who made it in a shared project; null when made on this machine. */
  origin: string | null;
  /** The subagent that made it (Claude Code's agent id and type); null for the main agent. */
  agentId: string | null;
  agentType: string | null;
  /** Each claim and what verification found (ClaimRecord[] from src/observer/claim-check.ts). */
  claims: unknown[];
}

export type Observations = ReturnType<typeof createObservations>;

export function createObservations(db: Database.Database) {
  const insert = db.prepare(`
    INSERT INTO observations (id, session_id, project, type, title, subtitle, narrative, facts, concepts, files_read, files_modified,
      source_message_ids, provider, model, prompt_version, discovery_tokens, created_at, claims, checkout, agent_id, agent_type, origin)
    VALUES (@id, @sessionId, @project, @type, @title, @subtitle, @narrative, @facts, @concepts, @filesRead, @filesModified,
      @sourceMessageIds, @provider, @model, @promptVersion, @discoveryTokens, @createdAt, @claims,
      coalesce(@checkout, (SELECT checkout FROM sessions WHERE session_id = @sessionId)), @agentId, @agentType, @origin)`);
  // One subagent's events only: a turn that mixes the main agent's events with a subagent's is the main agent's.
  const agentOfSources = db.prepare(`
    SELECT CASE WHEN count(*) > 0 AND count(agent_id) = count(*) AND count(DISTINCT agent_id) = 1 THEN max(agent_id) END AS id, max(agent_type) AS type
    FROM tool_events WHERE queue_id IN (SELECT value FROM json_each(?))`);
  const countStmt = db.prepare('SELECT count(*) AS n FROM observations');
  const recentForProject = db.prepare('SELECT * FROM observations WHERE project IS ? ORDER BY created_at DESC, id DESC LIMIT ?');
  const recentForSession = db.prepare('SELECT type, title FROM observations WHERE session_id = ? ORDER BY id DESC LIMIT ?');
  const byId = db.prepare('SELECT * FROM observations WHERE id = ?');
  const searchIndex = createSearchIndex(db);
  const bySession = db.prepare('SELECT * FROM observations WHERE session_id = ? ORDER BY id');

  return {
    /**
     * `claims`: what verification found for each claim (ClaimRecord[]), kept as provenance.
     * `id`: an imported row keeps its id; null takes the next one.
     */
    insert(observation: ParsedObservation, provenance: Provenance, claims: readonly unknown[] = [], id: number | null = null): number {
      const sources = JSON.stringify(provenance.sourceMessageIds);
      const agent =
        provenance.agent !== undefined
          ? provenance.agent
          : provenance.sourceMessageIds.length === 0
            ? null
            : (() => {
                const row = agentOfSources.get(sources) as { id: string | null; type: string | null };
                return row.id === null ? null : { id: row.id, type: row.type };
              })();
      const { agent: _given, ...rest } = provenance;
      const rowid = Number(
        insert.run({
          id,
          ...rest,
          checkout: provenance.checkout ?? null,
          origin: provenance.origin ?? null,
          agentId: agent?.id ?? null,
          agentType: agent?.type ?? null,
          claims: JSON.stringify(claims),
          type: observation.type,
          title: observation.title,
          subtitle: observation.subtitle,
          narrative: observation.narrative,
          facts: JSON.stringify(observation.facts),
          concepts: JSON.stringify(observation.concepts),
          filesRead: JSON.stringify(observation.files_read),
          filesModified: JSON.stringify(observation.files_modified),
          sourceMessageIds: sources,
        }).lastInsertRowid,
      );
      // In the caller's transaction: the row and its index entry commit (or roll back) together.
      searchIndex.addObservation(rowid, observation);
      return rowid;
    },
    count: () => (countStmt.get() as { n: number }).n,
    get(id: number): StoredObservation | null {
      const row = byId.get(id) as Record<string, unknown> | undefined;
      return row ? toStoredObservation(row) : null;
    },
    forSession: (sessionId: string) => (bySession.all(sessionId) as Array<Record<string, unknown>>).map(toStoredObservation),
    recentForProject: (project: string | null, limit: number) =>
      (recentForProject.all(project, limit) as Array<Record<string, unknown>>).map(toStoredObservation),
    /** Titles for the summary prompt, newest first. */
    recentForSession: (sessionId: string, limit: number) => recentForSession.all(sessionId, limit) as Array<{ type: ObservationType; title: string }>,
  };
}

const list = (value: unknown) => JSON.parse(String(value)) as string[];

/** The columns an observation's content is read from (what the search index holds of it). */
export const OBSERVATION_CONTENT_COLUMNS = 'type, title, subtitle, narrative, facts, concepts, files_read, files_modified';

/** An observation's content from a row holding OBSERVATION_CONTENT_COLUMNS. */
export function toParsedObservation(row: Record<string, unknown>): ParsedObservation {
  return {
    type: row.type as ObservationType,
    title: row.title as string,
    subtitle: row.subtitle as string,
    narrative: row.narrative as string,
    facts: list(row.facts),
    concepts: list(row.concepts),
    files_read: list(row.files_read),
    files_modified: list(row.files_modified),
  };
}

export function toStoredObservation(row: Record<string, unknown>): StoredObservation {
  return {
    id: row.id as number,
    sessionId: row.session_id as string,
    project: row.project as string | null,
    ...toParsedObservation(row),
    sourceMessageIds: JSON.parse(String(row.source_message_ids)) as number[],
    provider: row.provider as string,
    model: row.model as string | null,
    promptVersion: row.prompt_version as string,
    discoveryTokens: row.discovery_tokens as number | null,
    createdAt: row.created_at as number,
    checkout: (row.checkout as string | null) ?? null,
    agentId: (row.agent_id as string | null) ?? null,
    agentType: (row.agent_type as string | null) ?? null,
    origin: (row.origin as string | null | undefined) ?? null,
    claims: typeof row.claims === 'string' ? (JSON.parse(row.claims) as unknown[]) : [],
  };
}
