import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commandGroup, EXIT_FAILURE, EXIT_OK, parseCommandArgs, type CliIO, type Command } from '../command.js';
import { loadWorkerConfig } from '../../config.js';
import { openCollectorStore } from '../../fleet/collector/index.js';
import { exportDashboard, pushDashboards, queryTilesDirect, TILES, type TileResult } from '../../fleet/dashboards/index.js';

const exportCommand: Command = {
  name: 'export',
  summary: 'write PostHog insight and dashboard JSON',
  usage: 'usage: memtrace dashboards export [--out DIR]\n\nPrints the dashboard and one insight per tile (DataVisualizationNode over HogQL) as JSON,\nor writes dashboard.json and one file per insight into DIR.',
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
  usage: 'usage: memtrace dashboards push\n\nCreates or updates the "memtrace fleet" dashboard and its insights through the PostHog API.\nNeeds POSTHOG_PERSONAL_API_KEY and POSTHOG_PROJECT_ID; POSTHOG_API_HOST defaults to https://us.posthog.com.',
  async run(args, io) {
    parseCommandArgs(args, {});
    const missing = ['POSTHOG_PERSONAL_API_KEY', 'POSTHOG_PROJECT_ID'].filter((name) => !io.env[name]);
    if (missing.length > 0) {
      io.stderr.write(`memtrace dashboards push: set ${missing.join(' and ')} (a personal API key with insight:write and dashboard:write, and the project id)\n`);
      return EXIT_FAILURE;
    }
    try {
      const result = await pushDashboards(
        { apiHost: io.env.POSTHOG_API_HOST || 'https://us.posthog.com', projectId: io.env.POSTHOG_PROJECT_ID!, personalApiKey: io.env.POSTHOG_PERSONAL_API_KEY! },
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

function collectorDb(io: CliIO, flag: string | undefined): string {
  if (flag) return flag;
  const loaded = loadWorkerConfig(io.env, os.homedir());
  return path.join(loaded.ok ? loaded.config.dataDir : path.join(os.homedir(), '.memtrace'), 'collector.db');
}

function table(result: TileResult): string {
  const rows = result.rows.map((r) => result.columns.map((c) => formatCell(r[c])));
  const widths = result.columns.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ');
  return [`## ${result.tile.name}`, line(result.columns), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line), rows.length === 0 ? '(no data)' : ''].join('\n');
}

function formatCell(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toPrecision(4);
  return value === null || value === undefined ? '—' : String(value);
}

const reportCommand: Command = {
  name: 'report',
  summary: 'the tiles as tables, from the local collector store',
  usage: `usage: memtrace dashboards report [--db FILE] [--json] [--plain]\n\nComputes the ${TILES.length} tiles over the local collector store (default DATA_DIR/collector.db)\nfrom the sums it keeps as events arrive. --plain runs each tile's compiled SQL over the raw\nevents instead (slow on a large store; the same numbers).`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { db: { type: 'string' }, json: { type: 'boolean' }, plain: { type: 'boolean' } });
    const file = collectorDb(io, values.db);
    if (!fs.existsSync(file)) {
      io.stderr.write(`memtrace dashboards report: no collector store at ${file} (run 'memtrace collector --simulate --exit' or point --db at one)\n`);
      return EXIT_FAILURE;
    }
    const store = openCollectorStore(file);
    try {
      let results: TileResult[];
      if (values.plain) results = queryTilesDirect(store.db);
      else {
        const caughtUp = store.tiles.refresh((done, total) => io.stderr.write(`\rcounting stored events into the tiles: ${done}/${total}`));
        if (caughtUp.pending > 0) io.stderr.write('\n');
        results = store.tiles.read();
      }
      if (values.json) io.stdout.write(`${JSON.stringify(results.map((r) => ({ id: r.tile.id, name: r.tile.name, columns: r.columns, rows: r.rows })), null, 2)}\n`);
      else io.stdout.write(`${results.map(table).join('\n')}\n`);
    } finally {
      store.close();
    }
    return EXIT_OK;
  },
};

export const dashboardsCommand = commandGroup('dashboards', 'fleet dashboards as code', [exportCommand, pushCommand, reportCommand]);
