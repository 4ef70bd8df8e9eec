import type Database from 'better-sqlite3';
import { estimateTokens } from '../context/token-estimate.js';
import type { CompactionConfig } from './config.js';
import type { SkipReason } from './escalation.js';
import type { FrontierSummary, ProjectSnapshot } from './plan.js';
import type { CompactionLevel } from './prompts.js';
import { INITIAL_STATE, type ProjectCompactionState } from './retry-policy.js';
import { observationSourceText, type SourceObservation, type SourceSummary } from './source-text.js';

/** The summary DAG's rows as the compactor reads them. */
export interface StoredSourceSummary extends SourceSummary {
  id: number;
  depth: number;
  tokens: number;
  firstObservationId: number;
  lastObservationId: number;
  observationCount: number;
}

export interface NewSummary {
  level: CompactionLevel;
  content: string;
  tokens: number;
  sourceTokens: number;
  provider: string;
  model: string;
  promptVersion: string;
  nowMs: number;
}

/** `project IS NULL` rows get their own key; a real project name can never be this. */
const projectKey = (project: string | null) => (project === null ? '\u0000none' : `=${project}`);

export type CompactionStore = ReturnType<typeof createCompactionStore>;

/** SQLite side of compaction: every read is bounded and every write is one short transaction. */
export function createCompactionStore(db: Database.Database) {
  const projects = db.prepare('SELECT DISTINCT project FROM sessions UNION SELECT project FROM compaction_state');
  const latestForProject = db.prepare('SELECT max(id) AS id FROM observations WHERE project IS ?');
  const leafReach = db.prepare("SELECT max(last_observation_id) AS id FROM memory_summaries WHERE project IS ? AND kind = 'leaf'");
  const frontier = db.prepare(
    'SELECT id, depth, token_count, last_observation_id FROM memory_summaries WHERE project IS ? AND condensed_into IS NULL ORDER BY last_observation_id',
  );
  const rawFloor = db.prepare('SELECT id FROM observations WHERE project IS ? ORDER BY id DESC LIMIT 1 OFFSET ?');
  const rawAfter = db.prepare(
    'SELECT id, type, title, subtitle, narrative, facts, files_modified, created_at FROM observations WHERE project IS ? AND id > ? ORDER BY id',
  );
  const observationsByIds = db.prepare(
    'SELECT id, project, type, title, subtitle, narrative, facts, files_modified, created_at FROM observations WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id',
  );
  const summariesByIds = db.prepare(
    `SELECT id, project, depth, content, token_count, first_observation_id, last_observation_id, observation_count, earliest_at, latest_at, condensed_into
     FROM memory_summaries WHERE id IN (SELECT value FROM json_each(?)) ORDER BY last_observation_id`,
  );
  const insertSummary = db.prepare(`
    INSERT INTO memory_summaries (project, kind, depth, level, content, token_count, source_token_count, first_observation_id, last_observation_id,
      observation_count, earliest_at, latest_at, provider, model, prompt_version, created_at, updated_at)
    VALUES (@project, @kind, @depth, @level, @content, @tokens, @sourceTokens, @first, @last, @count, @earliest, @latest, @provider, @model, @promptVersion, @nowMs, @nowMs)`);
  const insertSource = db.prepare('INSERT INTO summary_sources (summary_id, ordinal, observation_id, source_summary_id) VALUES (?, ?, ?, ?)');
  const markCondensed = db.prepare('UPDATE memory_summaries SET condensed_into = ? WHERE id = ? AND condensed_into IS NULL');
  const stateGet = db.prepare('SELECT * FROM compaction_state WHERE project_key = ?');
  const stateSet = db.prepare(`
    INSERT INTO compaction_state (project_key, project, attempts, next_attempt_at, last_failure, wait_for_observation_above, idle_through_observation_id, updated_at)
    VALUES (@key, @project, @attempts, @nextAttemptAt, @lastFailure, @waitForObservationAbove, @idleThroughObservationId, @nowMs)
    ON CONFLICT (project_key) DO UPDATE SET attempts = excluded.attempts, next_attempt_at = excluded.next_attempt_at, last_failure = excluded.last_failure,
      wait_for_observation_above = excluded.wait_for_observation_above, idle_through_observation_id = excluded.idle_through_observation_id, updated_at = excluded.updated_at`);

  const writeLeafTx = db.transaction((project: string | null, observationIds: number[], expectedReach: number | null, summary: NewSummary): number | null => {
    if (((leafReach.get(project) as { id: number | null }).id ?? null) !== expectedReach) return null;
    const rows = (observationsByIds.all(JSON.stringify(observationIds)) as Array<Record<string, unknown>>).filter((r) => r.project === project);
    if (rows.length !== observationIds.length) return null;
    const id = Number(
      insertSummary.run({
        project,
        kind: 'leaf',
        depth: 0,
        ...summaryColumns(summary),
        first: rows[0]!.id,
        last: rows[rows.length - 1]!.id,
        count: rows.length,
        earliest: Math.min(...rows.map((r) => r.created_at as number)),
        latest: Math.max(...rows.map((r) => r.created_at as number)),
      }).lastInsertRowid,
    );
    for (const [i, r] of rows.entries()) insertSource.run(id, i, r.id, null);
    return id;
  });

  const writeCondensedTx = db.transaction((project: string | null, depth: number, sourceIds: number[], summary: NewSummary): number | null => {
    const sources = summariesByIds.all(JSON.stringify(sourceIds)) as Array<Record<string, unknown>>;
    if (sources.length !== sourceIds.length || sources.some((s) => s.condensed_into !== null || s.depth !== depth || s.project !== project)) return null;
    const id = Number(
      insertSummary.run({
        project,
        kind: 'condensed',
        depth: depth + 1,
        ...summaryColumns(summary),
        first: sources[0]!.first_observation_id,
        last: sources[sources.length - 1]!.last_observation_id,
        count: sources.reduce((sum, s) => sum + (s.observation_count as number), 0),
        earliest: Math.min(...sources.map((s) => s.earliest_at as number)),
        latest: Math.max(...sources.map((s) => s.latest_at as number)),
      }).lastInsertRowid,
    );
    sources.forEach((s, i) => {
      insertSource.run(id, i, null, s.id);
      markCondensed.run(id, s.id);
    });
    return id;
  });

  return {
    /** Projects with sessions or compaction state: a small table, never the observations. */
    projects: () => (projects.all() as Array<{ project: string | null }>).map((r) => r.project),
    latestObservationId: (project: string | null) => (latestForProject.get(project) as { id: number | null }).id ?? 0,
    leafReach: (project: string | null) => (leafReach.get(project) as { id: number | null }).id ?? null,

    /**
     * What the planner needs. Raw observations are read oldest first and counting stops once the
     * project is known to be over budget and the leaf run is complete, so the read stays small
     * even with 100,000 raw observations.
     */
    snapshot(
      project: string | null,
      config: Pick<CompactionConfig, 'budgetTokens' | 'keepRecentObservations' | 'leafInputTokens'>,
    ): ProjectSnapshot & { leafReach: number | null } {
      const reach = (leafReach.get(project) as { id: number | null }).id ?? null;
      const top = (frontier.all(project) as Array<Record<string, number>>).map(
        (r): FrontierSummary => ({ id: r.id!, depth: r.depth!, tokens: r.token_count!, lastObservationId: r.last_observation_id! }),
      );
      const frontierTokens = top.reduce((sum, s) => sum + s.tokens, 0);
      const floor = (rawFloor.get(project, config.keepRecentObservations - 1) as { id: number } | undefined)?.id ?? null;
      const leafRun: Array<{ id: number; tokens: number }> = [];
      let runTokens = 0;
      let runClosed = floor === null; // fewer observations than the kept-recent ones: no run
      let rawTokens = 0;
      let complete = true;
      for (const row of rawAfter.iterate(project, reach ?? 0) as IterableIterator<Record<string, unknown>>) {
        const id = row.id as number;
        const tokens = estimateTokens(observationSourceText(toSourceObservation(row)));
        if (!runClosed) {
          if (floor !== null && id >= floor) runClosed = true;
          else if (leafRun.length > 0 && runTokens + tokens > config.leafInputTokens) runClosed = true;
          else {
            leafRun.push({ id, tokens });
            runTokens += tokens;
          }
        }
        rawTokens += tokens;
        if (runClosed && frontierTokens + rawTokens > config.budgetTokens) {
          complete = false;
          break;
        }
      }
      return { frontier: top, rawTokens, rawTokensComplete: complete, leafRun, leafReach: reach };
    },

    observations(ids: readonly number[]): SourceObservation[] {
      return (observationsByIds.all(JSON.stringify(ids)) as Array<Record<string, unknown>>).map(toSourceObservation);
    },
    summaries(ids: readonly number[]): StoredSourceSummary[] {
      return (summariesByIds.all(JSON.stringify(ids)) as Array<Record<string, unknown>>).map((r) => ({
        id: r.id as number,
        depth: r.depth as number,
        content: r.content as string,
        tokens: r.token_count as number,
        firstObservationId: r.first_observation_id as number,
        lastObservationId: r.last_observation_id as number,
        observationCount: r.observation_count as number,
        earliestAt: r.earliest_at as number,
        latestAt: r.latest_at as number,
      }));
    },

    /** Stores a leaf unless another writer moved the project on meanwhile (then null: stale). */
    writeLeaf: (project: string | null, observationIds: number[], expectedReach: number | null, summary: NewSummary) =>
      writeLeafTx.immediate(project, observationIds, expectedReach, summary),
    /** Stores a condensed summary unless a source was condensed meanwhile (then null: stale). */
    writeCondensed: (project: string | null, depth: number, sourceIds: number[], summary: NewSummary) =>
      writeCondensedTx.immediate(project, depth, sourceIds, summary),

    loadState(project: string | null): ProjectCompactionState {
      const row = stateGet.get(projectKey(project)) as Record<string, unknown> | undefined;
      if (!row) return INITIAL_STATE;
      return {
        attempts: row.attempts as number,
        nextAttemptAt: row.next_attempt_at as number,
        lastFailure: (row.last_failure as SkipReason | null) ?? null,
        waitForObservationAbove: (row.wait_for_observation_above as number | null) ?? null,
        idleThroughObservationId: (row.idle_through_observation_id as number | null) ?? null,
      };
    },
    saveState(project: string | null, state: ProjectCompactionState, nowMs: number): void {
      stateSet.run({ key: projectKey(project), project, ...state, nowMs });
    },
  };
}

function summaryColumns(s: NewSummary) {
  return {
    level: s.level,
    content: s.content,
    tokens: s.tokens,
    sourceTokens: s.sourceTokens,
    provider: s.provider,
    model: s.model,
    promptVersion: s.promptVersion,
    nowMs: s.nowMs,
  };
}

/** An observations row as a summarizer's source (repair reads leaves' sources the same way). */
export function toSourceObservation(row: Record<string, unknown>): SourceObservation {
  return {
    id: row.id as number,
    type: row.type as string,
    title: row.title as string,
    subtitle: row.subtitle as string,
    narrative: row.narrative as string,
    facts: JSON.parse(row.facts as string) as string[],
    filesModified: JSON.parse(row.files_modified as string) as string[],
    createdAt: row.created_at as number,
  };
}
