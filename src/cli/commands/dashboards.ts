import fs from 'node:fs';
import path from 'node:path';
import { commandGroup, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, parseCommandArgs, UsageError, type CliIO, type Command } from '../command.js';
import { storeFailureLine, storeFromFlags } from '../collector-store-flag.js';
import { describeStore, openFleetStore, type FleetStore, type StoreSpec } from '../../fleet/collector/index.js';
import type { CollectorStore } from '../../fleet/collector/index.js';
import { exportDashboard, PostHogApiError, pushDashboards, TILES, type TileResult } from '../../fleet/dashboards/index.js';
import {
  postHogReviewSource,
  reviewMarkdown,
  reviewNewestPair,
  ReviewInputError,
  reviewTable,
  runReview,
  checkVersionPair,
  DEFAULT_SINCE_WEEKS,
  type Review,
  type ReviewSource,
} from '../../fleet/review/index.js';

const exportCommand: Command = {
  name: 'export',
  summary: 'write PostHog insight and dashboard JSON',
  usage:
    'usage: memtrace dashboards export [--out DIR]\n\nPrints the dashboard and one insight per tile (DataVisualizationNode over HogQL) as JSON,\nor writes dashboard.json and one file per insight into DIR.',
  async run(args, io) {
    const { values } = parseCommandArgs(args, { out: { type: 'string' } });
    const spec = exportDashboard();
    if (!values.out) {
      io.stdout.write(`${JSON.stringify(spec, null, 2)}\n`);
      return EXIT_OK;
    }
    fs.mkdirSync(values.out, { recursive: true });
    fs.writeFileSync(path.join(values.out, 'dashboard.json'), `${JSON.stringify(spec.dashboard, null, 2)}\n`);
    spec.insights.forEach((insight, i) => {
      const file = path.join(values.out!, `insight-${String(i + 1).padStart(2, '0')}.json`);
      fs.writeFileSync(file, `${JSON.stringify(insight, null, 2)}\n`);
    });
    io.stdout.write(`wrote dashboard.json and ${spec.insights.length} insight file(s) to ${values.out}\n`);
    return EXIT_OK;
  },
};

const pushCommand: Command = {
  name: 'push',
  summary: 'create or update the dashboard in PostHog (idempotent)',
  usage:
    'usage: memtrace dashboards push\n\nCreates or updates the "memtrace fleet" dashboard and its insights through the PostHog API.\nNeeds POSTHOG_PERSONAL_API_KEY and POSTHOG_PROJECT_ID; POSTHOG_API_HOST defaults to https://us.posthog.com.',
  async run(args, io) {
    parseCommandArgs(args, {});
    const missing = ['POSTHOG_PERSONAL_API_KEY', 'POSTHOG_PROJECT_ID'].filter((name) => !io.env[name]);
    if (missing.length > 0) {
      io.stderr.write(
        `memtrace dashboards push: set ${missing.join(' and ')} (a personal API key with insight:write and dashboard:write, and the project id)\n`,
      );
      return EXIT_FAILURE;
    }
    try {
      const result = await pushDashboards(
        {
          apiHost: io.env.POSTHOG_API_HOST || 'https://us.posthog.com',
          projectId: io.env.POSTHOG_PROJECT_ID!,
          personalApiKey: io.env.POSTHOG_PERSONAL_API_KEY!,
        },
        { progress: (line) => io.stdout.write(`${line}\n`) },
      );
      const created = result.insights.filter((i) => i.action === 'created').length;
      io.stdout.write(`done: ${created} insight(s) created, ${result.insights.length - created} updated\n`);
      return EXIT_OK;
    } catch (error) {
      io.stderr.write(`memtrace dashboards push: ${error instanceof Error ? error.message : String(error)}\n`);
      return EXIT_FAILURE;
    }
  },
};

function table(result: TileResult): string {
  const rows = result.rows.map((r) => result.columns.map((c) => formatCell(r[c])));
  const widths = result.columns.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ');
  return [`## ${result.tile.name}`, line(result.columns), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line), rows.length === 0 ? '(no data)' : ''].join(
    '\n',
  );
}

function formatCell(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toPrecision(4);
  return value === null || value === undefined ? '—' : String(value);
}

interface OpenStore {
  store: FleetStore;
  sqlite: CollectorStore | null;
}

/** Opens a collector store, or says in one line why it cannot (null). */
async function openStore(io: CliIO, command: string, spec: StoreSpec): Promise<OpenStore | null> {
  if (spec.kind === 'sqlite' && !fs.existsSync(spec.path)) {
    io.stderr.write(
      `memtrace dashboards ${command}: no collector store at ${spec.path} (run 'memtrace collector --simulate --exit' or point --store / --db at one)\n`,
    );
    return null;
  }
  try {
    const opened = await openFleetStore(spec, { onProgress: (line) => io.stderr.write(`${line}\n`) });
    return { store: opened.store, sqlite: opened.sqlite };
  } catch (error) {
    io.stderr.write(`memtrace dashboards ${command}: ${storeFailureLine(error)}\n`);
    return null;
  }
}

/** Brings a SQLite store's review sums up to date, showing progress on a large backlog. */
function refreshReviewSums(io: CliIO, store: CollectorStore): void {
  const caughtUp = store.review.refresh((done, total) => io.stderr.write(`\rcounting stored events into the release review sums: ${done}/${total}`));
  if (caughtUp.pending > 0) io.stderr.write('\n');
}

const reportCommand: Command = {
  name: 'report',
  summary: 'the tiles as tables, from the local collector store',
  usage: `usage: memtrace dashboards report [--store STORE | --db FILE] [--json] [--plain] [--review]\n\nComputes the ${TILES.length} tiles over a collector store (default DATA_DIR/collector.db; STORE is\nsqlite:PATH, chdb:DIR or clickhouse:URL, as for 'memtrace collector') from what it keeps up to\ndate as events arrive. --plain runs each tile's plain query over the raw events instead (slow on\na large store; the same numbers). --review adds the release review of the two newest memtrace\nversions (see 'memtrace dashboards review'); with --json the output is then\n{"tiles": [...], "review": {...} or null}.`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      db: { type: 'string' },
      store: { type: 'string' },
      json: { type: 'boolean' },
      plain: { type: 'boolean' },
      review: { type: 'boolean' },
    });
    const opened = await openStore(io, 'report', storeFromFlags(io, values));
    if (opened === null) return EXIT_FAILURE;
    const { store, sqlite } = opened;
    try {
      let results: TileResult[];
      if (values.plain) results = await store.queryTilesPlain();
      else {
        if (sqlite) {
          const caughtUp = sqlite.tiles.refresh((done, total) => io.stderr.write(`\rcounting stored events into the tiles: ${done}/${total}`));
          if (caughtUp.pending > 0) io.stderr.write('\n');
        }
        results = await store.readTiles();
      }
      const tiles = results.map((r) => ({ id: r.tile.id, name: r.tile.name, columns: r.columns, rows: r.rows }));
      let newest: Awaited<ReturnType<typeof reviewNewestPair>> | null = null;
      if (values.review) {
        if (sqlite) refreshReviewSums(io, sqlite);
        newest = await reviewNewestPair(store.reviewSource());
      }
      if (values.json) io.stdout.write(`${JSON.stringify(newest === null ? tiles : { tiles, review: newest.review }, null, 2)}\n`);
      else
        io.stdout.write(
          `${[...results.map(table), ...(newest === null ? [] : [newest.review ? reviewTable(newest.review) : `## Release review\n${newest.reason}`])].join('\n')}\n`,
        );
    } catch (error) {
      io.stderr.write(`memtrace dashboards report: ${storeFailureLine(error)}\n`);
      return EXIT_FAILURE;
    } finally {
      await store.close();
    }
    return EXIT_OK;
  },
};

const REVIEW_USAGE = `usage: memtrace dashboards review --baseline V1 --candidate V2 [--store STORE | --db FILE | --posthog] [--json] [--markdown FILE]

Compares two app versions measure by measure, with the install as the unit of sampling: each
version's value (a ratio of sums over its installs) with a 95 % interval, the difference with
its interval, a verdict (better, worse, no_change, insufficient_data) and the minimum effect
this fleet could detect. See docs/dashboards.md.

options:
  --baseline V1     the version to compare against (e.g. 0.1.0)
  --candidate V2    the version under review (e.g. 0.2.0)
  --store STORE     a collector store: sqlite:PATH (default DATA_DIR/collector.db), chdb:DIR or
                    clickhouse:URL, as for 'memtrace collector'
  --db FILE         the same as --store sqlite:FILE
  --posthog         read PostHog instead, through its query API (last ${DEFAULT_SINCE_WEEKS} weeks); needs
                    POSTHOG_PERSONAL_API_KEY (query:read) and POSTHOG_PROJECT_ID; POSTHOG_API_HOST
                    defaults to https://us.posthog.com
  --json            print the review as JSON
  --markdown FILE   also write it as Markdown, to paste into a release pull request
  -h, --help        show this help`;

const reviewCommand: Command = {
  name: 'review',
  summary: 'compare two versions measure by measure, with intervals and verdicts',
  usage: REVIEW_USAGE,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      baseline: { type: 'string' },
      candidate: { type: 'string' },
      db: { type: 'string' },
      store: { type: 'string' },
      posthog: { type: 'boolean' },
      json: { type: 'boolean' },
      markdown: { type: 'string' },
    });
    if (values.baseline === undefined || values.candidate === undefined) throw new UsageError('--baseline and --candidate are required');
    if ((values.db !== undefined || values.store !== undefined) && values.posthog)
      throw new UsageError(`${values.db !== undefined ? '--db' : '--store'} and --posthog are two sources; give one`);
    const spec = values.posthog ? null : storeFromFlags(io, values);
    const fail = (message: string, code: number) => {
      io.stderr.write(`memtrace dashboards review: ${message}\n`);
      return code;
    };
    let opened: OpenStore | null = null;
    try {
      checkVersionPair(values.baseline, values.candidate);
      let source: ReviewSource;
      if (values.posthog) {
        const missing = ['POSTHOG_PERSONAL_API_KEY', 'POSTHOG_PROJECT_ID'].filter((name) => !io.env[name]);
        if (missing.length > 0) return fail(`set ${missing.join(' and ')} (a personal API key with query:read, and the project id)`, EXIT_FAILURE);
        source = postHogReviewSource({
          apiHost: io.env.POSTHOG_API_HOST || 'https://us.posthog.com',
          projectId: io.env.POSTHOG_PROJECT_ID!,
          personalApiKey: io.env.POSTHOG_PERSONAL_API_KEY!,
        });
      } else {
        opened = await openStore(io, 'review', spec!);
        if (opened === null) return EXIT_FAILURE;
        if (opened.sqlite) refreshReviewSums(io, opened.sqlite);
        source = opened.store.reviewSource();
      }
      const review: Review = await runReview(source, values.baseline, values.candidate);
      io.stdout.write(values.json ? `${JSON.stringify(review, null, 2)}\n` : `${reviewTable(review)}\n`);
      if (values.markdown !== undefined) {
        try {
          fs.writeFileSync(values.markdown, reviewMarkdown(review));
        } catch (error) {
          return fail(`could not write ${values.markdown}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, EXIT_FAILURE);
        }
        io.stderr.write(`wrote the review as Markdown to ${values.markdown}\n`);
      }
      return EXIT_OK;
    } catch (error) {
      if (error instanceof ReviewInputError) return fail(error.message, EXIT_USAGE);
      if (error instanceof PostHogApiError) return fail(error.message, EXIT_FAILURE);
      if (opened !== null) return fail(`${describeStore(spec!)}: ${storeFailureLine(error)}`, EXIT_FAILURE);
      throw error;
    } finally {
      await opened?.store.close();
    }
  },
};

export const dashboardsCommand = commandGroup('dashboards', 'fleet dashboards as code', [exportCommand, pushCommand, reportCommand, reviewCommand]);
