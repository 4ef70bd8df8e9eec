import createHogQLParser, { type HogQLParser } from '@posthog/hogql-parser';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { openCollectorStore, type CollectorStore } from '../../../src/fleet/collector/index.js';
import { compileSQLite, PostHogApiError, simulateFleet } from '../../../src/fleet/dashboards/index.js';
import {
  installSumsHogQL,
  localReviewSource,
  postHogReviewSource,
  REVIEW_SUMS_TILE,
  ReviewInputError,
  runReview,
  versionsHogQL,
} from '../../../src/fleet/review/index.js';
import { captureIO } from '../../support/cli-io.js';
import { startFakePostHogApi, type QueryTable } from '../../support/fake-posthog-api.js';
import { makeTempDir } from '../../support/temp-dir.js';

const NOW = Date.UTC(2026, 7, 19, 12);
const KEY = 'phx_personal';
const SUMS = REVIEW_SUMS_TILE.measures.map((m) => m.name);

type Ast = { error?: boolean; type?: string; message?: string; select?: Array<{ alias?: string; chain?: string[] }> };

/**
 * Stands in for ClickHouse behind the fake PostHog: answers the review's two queries from the
 * per-install rows the plain compiled SQL computes over the collector's raw events (the same rows
 * the collector's kept sums hold), honouring the version filter, the order and LIMIT/OFFSET.
 */
function clickhouseFrom(rows: Array<Record<string, unknown>>) {
  return (hogql: string): QueryTable => {
    if (/GROUP BY install, version/.test(hogql)) {
      const versions = [...(/version IN \(([^)]*)\)/.exec(hogql)?.[1] ?? '').matchAll(/'([^']*)'/g)].map((m) => m[1]);
      const [, limit, offset] = /LIMIT (\d+) OFFSET (\d+)/.exec(hogql)!.map(Number) as [number, number, number];
      const byte = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      const wanted = rows
        .filter((r) => versions.includes(String(r.series)))
        .sort((a, b) => byte(String(a.series), String(b.series)) || byte(String(a.x), String(b.x)));
      return { columns: ['install', 'version', ...SUMS], results: wanted.slice(offset, offset + limit).map((r) => [r.x, r.series, ...SUMS.map((s) => r[s])]) };
    }
    const versions = new Map<string, { installs: number; memtrace: number }>();
    for (const r of rows) {
      const v = versions.get(String(r.series)) ?? { installs: 0, memtrace: 0 };
      versions.set(String(r.series), { installs: v.installs + 1, memtrace: v.memtrace + Number(r.memtrace_events) });
    }
    return { columns: ['version', 'installs', 'memtrace_events'], results: [...versions].map(([v, c]) => [v, c.installs, c.memtrace]) };
  };
}

describe('the release review from PostHog', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let dbFile: string;
  let store: CollectorStore;
  let api: Awaited<ReturnType<typeof startFakePostHogApi>>;
  let parser: HogQLParser;
  const config = () => ({ apiHost: api.url, projectId: '42', personalApiKey: KEY, pageRows: 25 });

  beforeAll(async () => {
    temp = makeTempDir();
    dbFile = path.join(temp.dir, 'collector.db');
    store = openCollectorStore(dbFile);
    store.insert(simulateFleet({ seed: 21, installs: 60, nowMs: NOW }));
    const reference = store.db.prepare(compileSQLite(REVIEW_SUMS_TILE).query).all() as Array<Record<string, unknown>>;
    api = await startFakePostHogApi(KEY, { answerQuery: clickhouseFrom(reference) });
    parser = await createHogQLParser();
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    store?.close();
    temp?.cleanup();
  });

  it("sends HogQL that PostHog's parser reads, returning the columns the review reads", () => {
    for (const [sql, columns] of [
      [installSumsHogQL(['0.1.0', '0.2.0'], { limit: 100, offset: 0 }), ['install', 'version', ...SUMS]],
      [versionsHogQL(), ['version', 'installs', 'memtrace_events']],
    ] as const) {
      const ast = JSON.parse(parser.parseSelect(sql, true)) as Ast;
      expect(ast.error ? `${ast.type}: ${ast.message}` : 'parsed').toBe('parsed');
      expect((ast.select ?? []).map((s) => s.alias ?? s.chain?.at(-1))).toEqual(columns);
    }
    const broken = JSON.parse(
      parser.parseSelect(installSumsHogQL(['0.1.0', '0.2.0'], { limit: 100, offset: 0 }).replace('GROUP BY install', 'GROUP install'), true),
    ) as Ast;
    expect(broken.error).toBe(true);
  }, 120_000);

  it('gives the same review as the local collector from the same per-install rows', async () => {
    const local = await runReview(localReviewSource(store.db, store.review, 'local'), '0.1.0', '0.2.0');
    const before = api.queries.length;
    const remote = await runReview(postHogReviewSource(config()), '0.1.0', '0.2.0');
    expect(remote).toEqual(local);
    expect(local.measures.find((m) => m.id === 'hook_ms_per_call')!.verdict).toBe('better');
    // 60 installs on two versions come in pages of 25.
    expect(api.queries.length - before).toBeGreaterThanOrEqual(4);
  }, 120_000);

  it('prints the same JSON through the command line with --posthog as with --db', async () => {
    const env = { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_PROJECT_ID: '42', POSTHOG_API_HOST: api.url };
    const remote = captureIO({ env });
    expect(await main(['dashboards', 'review', '--posthog', '--baseline', '0.1.0', '--candidate', '0.2.0', '--json'], remote.io)).toBe(0);
    const local = captureIO();
    expect(await main(['dashboards', 'review', '--db', dbFile, '--baseline', '0.1.0', '--candidate', '0.2.0', '--json'], local.io)).toBe(0);
    expect(JSON.parse(remote.stdout())).toEqual(JSON.parse(local.stdout()));
  }, 120_000);

  it('names a version PostHog holds no events from, with those it does hold', async () => {
    const review = runReview(postHogReviewSource(config()), '0.2.0', '0.9.0');
    await expect(review).rejects.toBeInstanceOf(ReviewInputError);
    await expect(review).rejects.toThrow(/no events from version 0\.9\.0 in PostHog project 42 .*versions with events: 13\.6\.0, 13\.5\.2, 0\.2\.0, 0\.1\.0/);
  }, 120_000);

  it('reports a refused key in one line', async () => {
    const review = runReview(postHogReviewSource({ ...config(), personalApiKey: 'wrong' }), '0.1.0', '0.2.0');
    await expect(review).rejects.toBeInstanceOf(PostHogApiError);
    await expect(review).rejects.toThrow(/answered 401: the personal API key was refused/);
  });
});
