import { PostHogApiError } from '../dashboards/posthog-push.js';
import { installSumsFromColumns, type InstallSums, type VersionInfo } from './install-sums.js';
import { pairInstalls, type PairedSums } from './paired-sums.js';
import { DEFAULT_SINCE_WEEKS, installSumsHogQL, versionsHogQL } from './review-hogql.js';
import type { ReviewSource } from './review-source.js';
import { MEMTRACE_EVENTS_COLUMN } from './review-sums-tile.js';

export interface PostHogReviewConfig {
  /** PostHog's app/API host (not the ingestion host), e.g. https://us.posthog.com. */
  apiHost: string;
  projectId: string;
  /** A personal API key with the query:read scope. */
  personalApiKey: string;
  sinceWeeks?: number;
  /** Rows per query page (PostHog returns up to 50 000 rows for an explicit LIMIT). */
  pageRows?: number;
}

export interface PostHogReviewDeps {
  fetch?: typeof fetch;
}

/** The part of PostHog's HogQLQueryResponse the review reads. */
interface QueryTable {
  columns: string[];
  results: unknown[][];
}

const MAX_PAGES = 200;

/**
 * Per-install sums from PostHog: the review's HogQL through the query API
 * (`POST /api/projects/:id/query/`, a HogQLQuery), page by page; the intervals are then computed
 * here from those rows exactly as from the local collector's.
 */
export function postHogReviewSource(config: PostHogReviewConfig, deps: PostHogReviewDeps = {}): ReviewSource {
  const doFetch = deps.fetch ?? fetch;
  const host = config.apiHost.replace(/\/+$/, '');
  const url = `${host}/api/projects/${encodeURIComponent(config.projectId)}/query/`;
  const sinceWeeks = config.sinceWeeks ?? DEFAULT_SINCE_WEEKS;
  const pageRows = config.pageRows ?? 50_000;

  const query = async (hogql: string): Promise<QueryTable> => {
    let response: Response;
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${config.personalApiKey}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query: { kind: 'HogQLQuery', query: hogql }, name: 'memtrace dashboards review' }),
      });
    } catch (error) {
      throw new PostHogApiError(`could not reach ${host}: ${error instanceof Error ? error.message : String(error)}`, null);
    }
    const text = await response.text();
    if (!response.ok) throw new PostHogApiError(explain(response.status, text, config.projectId), response.status);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new PostHogApiError(`PostHog query API answered ${response.status} with a body that is not JSON`, response.status);
    }
    const table = body as Partial<QueryTable> | null;
    if (!Array.isArray(table?.columns) || !Array.isArray(table?.results))
      throw new PostHogApiError('PostHog query API answered without "columns" and "results"', response.status);
    return { columns: table.columns.map(String), results: table.results as unknown[][] };
  };

  const reader = (table: QueryTable) => {
    const at = new Map(table.columns.map((c, i) => [c, i]));
    return (row: unknown[], column: string): unknown => {
      const i = at.get(column);
      if (i === undefined) throw new PostHogApiError(`PostHog query result has no column ${column}`, null);
      return row[i];
    };
  };

  return {
    where: `PostHog project ${config.projectId} (last ${sinceWeeks} weeks)`,
    async versions(): Promise<VersionInfo[]> {
      const table = await query(versionsHogQL(sinceWeeks));
      const cell = reader(table);
      return table.results.map((row) => ({
        version: String(cell(row, 'version')),
        installs: number(cell(row, 'installs'), 'installs'),
        memtraceEvents: number(cell(row, MEMTRACE_EVENTS_COLUMN), MEMTRACE_EVENTS_COLUMN),
      }));
    },
    async pairedSums(baseline, candidate): Promise<PairedSums> {
      const versions = [baseline, candidate];
      const rows: InstallSums[] = [];
      for (let page = 0; page < MAX_PAGES; page += 1) {
        const table = await query(installSumsHogQL(versions, { limit: pageRows, offset: page * pageRows }, sinceWeeks));
        const cell = reader(table);
        for (const row of table.results)
          rows.push(installSumsFromColumns(String(cell(row, 'install')), String(cell(row, 'version')), (column) => number(cell(row, column), column)));
        if (table.results.length < pageRows) return pairInstalls(rows, baseline, candidate);
      }
      throw new PostHogApiError(
        `PostHog returned more than ${MAX_PAGES} pages of ${pageRows} installs; the review stops there rather than read a partial fleet`,
        null,
      );
    },
  };
}

/** ClickHouse numbers arrive as JSON numbers, 64-bit integers sometimes as strings. */
function number(v: unknown, column: string): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  if (!Number.isFinite(n)) throw new PostHogApiError(`PostHog query result holds ${JSON.stringify(v)} in ${column}, not a number`, null);
  return n;
}

function explain(status: number, body: string, projectId: string): string {
  const detail = body.replace(/\s+/g, ' ').slice(0, 200);
  const what = `PostHog query API answered ${status}`;
  if (status === 401) return `${what}: the personal API key was refused (POSTHOG_PERSONAL_API_KEY) — ${detail}`;
  if (status === 403) return `${what}: the key lacks the query:read scope — ${detail}`;
  if (status === 404) return `${what}: no project ${projectId} there (POSTHOG_PROJECT_ID, POSTHOG_API_HOST) — ${detail}`;
  return `${what}: ${detail}`;
}
