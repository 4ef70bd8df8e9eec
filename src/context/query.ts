import type Database from 'better-sqlite3';
import type { ContextHistorySummary } from './history.js';
import type { ContextObservation, ContextSummary } from './render.js';

/** A bounded window of recent candidates: selection cost never grows with the table. */
const CANDIDATE_WINDOW = 300;
/**
 * Subagents' observations are read in a window of their own, so a burst of them (a subagent
 * can make hundreds of calls) never pushes the main agent's out of the candidates.
 */
const SUBAGENT_WINDOW = 100;
const COLUMNS = 'id, type, title, subtitle, facts, files_modified, created_at, discovery_tokens, agent_type, agent_id, origin';
/** Top summaries read per injection; the DAG keeps their number logarithmic in the history. */
const HISTORY_WINDOW = 64;
/** The newest condensed summaries whose sources are loaded, so selection can open them up. */
const EXPANDABLE = 3;

export function createContextQuery(db: Database.Database) {
  const side = (agent: string) => ({
    recent: db.prepare(`SELECT ${COLUMNS} FROM observations WHERE project IS ? AND ${agent} ORDER BY created_at DESC, id DESC LIMIT ?`),
    // Once part of the project is compacted, raw candidates are what the summaries do not cover.
    uncovered: db.prepare(`SELECT ${COLUMNS} FROM observations WHERE project IS ? AND ${agent} AND id > ? ORDER BY id DESC LIMIT ?`),
  });
  const main = side('agent_id IS NULL');
  const subagents = side('agent_id IS NOT NULL');
  const leafReach = db.prepare("SELECT max(last_observation_id) AS id FROM memory_summaries WHERE project IS ? AND kind = 'leaf'");
  const top = db.prepare(`
    SELECT id, depth, content, observation_count, earliest_at, latest_at FROM memory_summaries
    WHERE project IS ? AND condensed_into IS NULL AND level != 'fallback' ORDER BY last_observation_id DESC LIMIT ?`);
  const sourcesOf = db.prepare(`
    SELECT m.id, m.depth, m.content, m.observation_count, m.earliest_at, m.latest_at, m.level FROM summary_sources s
    JOIN memory_summaries m ON m.id = s.source_summary_id WHERE s.summary_id = ? ORDER BY s.ordinal`);
  const summary = db.prepare(`
    SELECT request, learned, completed, next_steps, created_at, origin
    FROM summaries WHERE project IS ? AND level != 'fallback' ORDER BY created_at DESC, id DESC LIMIT 1`);
  return {
    candidates(project: string | null): ContextObservation[] {
      const reach = (leafReach.get(project) as { id: number | null }).id;
      const read = (s: typeof main, window: number) => (reach === null ? s.recent.all(project, window) : s.uncovered.all(project, reach, window));
      const rows = [...read(main, CANDIDATE_WINDOW), ...read(subagents, SUBAGENT_WINDOW)];
      return (rows as Array<Record<string, unknown>>).map((row) => ({
        id: row.id as number,
        type: row.type as ContextObservation['type'],
        title: row.title as string,
        subtitle: row.subtitle as string,
        facts: JSON.parse(row.facts as string) as string[],
        filesModified: JSON.parse(row.files_modified as string) as string[],
        createdAt: row.created_at as number,
        discoveryTokens: row.discovery_tokens as number | null,
        subagent: row.agent_id === null ? null : ((row.agent_type as string | null) ?? 'subagent'),
        origin: (row.origin as string | null) ?? null,
      }));
    },
    /** The top of the project's summary DAG, newest first; a legacy fallback row is never injected. */
    history(project: string | null): ContextHistorySummary[] {
      let expandable = EXPANDABLE;
      return (top.all(project, HISTORY_WINDOW) as Array<Record<string, unknown>>).map((row) => {
        const item = toHistory(row);
        if (item.depth === 0 || expandable <= 0) return item;
        expandable -= 1;
        const sources = sourcesOf.all(item.id) as Array<Record<string, unknown>>;
        return sources.some((s) => s.level === 'fallback') ? item : { ...item, sources: sources.map(toHistory) };
      });
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
        origin: (row.origin as string | null) ?? null,
      };
    },
  };
}

function toHistory(row: Record<string, unknown>): ContextHistorySummary {
  return {
    id: row.id as number,
    depth: row.depth as number,
    content: row.content as string,
    observationCount: row.observation_count as number,
    earliestAt: row.earliest_at as number,
    latestAt: row.latest_at as number,
  };
}

export type ContextQuery = ReturnType<typeof createContextQuery>;
