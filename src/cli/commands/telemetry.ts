import os from 'node:os';
import path from 'node:path';
import { commandGroup, EXIT_FAILURE, EXIT_OK, parseCommandArgs, UsageError, type CliIO, type Command } from '../command.js';
import { loadWorkerConfig } from '../../config.js';
import { openStore } from '../../store/index.js';
import { createTelemetry, readTelemetryConfig, recordChoice } from '../../telemetry/runtime.js';
import { renderSchemaJson, renderSchemaMarkdown, renderSchemaText } from '../../telemetry/schema-docs.js';
import { resolveConsent } from '../../telemetry/consent.js';
import { silentLogger } from '../../log.js';
import { systemClock } from '../../clock.js';
import { APP_VERSION } from '../../version.js';
import { describeDegraded, workerHealth } from '../worker-health.js';

function dataDirOf(io: CliIO): string {
  const loaded = loadWorkerConfig(io.env, os.homedir());
  if (!loaded.ok) throw new UsageError(loaded.errors.join('; '));
  return loaded.config.dataDir;
}

/** Opens the worker's database (WAL: safe while a worker runs) and a telemetry view of it. */
async function withTelemetry<T>(io: CliIO, fn: (t: ReturnType<typeof createTelemetry>) => Promise<T> | T): Promise<T> {
  const dataDir = dataDirOf(io);
  // Never recover claimed messages here: a running worker has them in flight.
  const store = openStore(path.join(dataDir, 'memtrace.db'), { recoverClaimed: false });
  try {
    const telemetry = createTelemetry(
      { dataDir, env: io.env, appVersion: APP_VERSION, provider: 'none' },
      { db: store.db, clock: systemClock, log: silentLogger, stderr: io.stderr },
    );
    return await fn(telemetry);
  } finally {
    store.close();
  }
}

const jsonFlag = { json: { type: 'boolean' as const } };

const status: Command = {
  name: 'status',
  summary: 'state, who decided it, install id, sink, outbox and last flush',
  usage:
    'usage: memtrace telemetry status [--json]\n\nShows whether telemetry is on and which layer decided it (DO_NOT_TRACK, MEMTRACE_TELEMETRY,\nthe config file, or the default), the install id, config path, sink, outbox depth, pending\nrollups and the last flush.',
  async run(args, io) {
    const { values } = parseCommandArgs(args, jsonFlag);
    const s = await withTelemetry(io, (t) => t.status(Date.now()));
    const worker = await workerHealth(dataDirOf(io));
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ ...s, worker }, null, 2)}\n`);
      return EXIT_OK;
    }
    const rows: Array<[string, string]> = [
      ['telemetry', `${s.enabled ? 'on' : 'off'} — ${s.reason} (decided by ${s.decided_by})`],
      ['install id', s.install_id ?? '(none yet)'],
      ['config', s.config_path],
      [
        'worker',
        !worker.running
          ? 'not running'
          : `running (pid ${worker.pid}, port ${worker.port ?? '?'}) — ${worker.status}${worker.degraded && worker.degraded.length > 0 ? `: ${describeDegraded(worker.degraded)}` : ''}`,
      ],
      ['sink', `${s.sink}${s.sink_state.state === 'down' ? ` — down after ${s.sink_state.failures} failure(s), next try ${s.sink_state.retry_at}` : ''}`],
      ['outbox', `${s.outbox_depth} event(s) waiting`],
      ['pending rollups', String(s.pending_rollups)],
      ['last flush', s.last_flush_at ? `${s.last_flush_at} — ${s.last_flush_result}` : 'never'],
      ['error capture', s.error_capture ? 'on' : 'off (MEMTRACE_TELEMETRY_ERRORS=0)'],
      ['debug', s.debug ? 'on (prints payloads, sends nothing)' : 'off'],
    ];
    for (const [k, v] of rows) io.stdout.write(`${k.padEnd(16)} ${v}\n`);
    io.stdout.write('\nSee what would be sent: npx telemetry preview\n');
    return EXIT_OK;
  },
};

const choice = (enabled: boolean): Command => ({
  name: enabled ? 'enable' : 'disable',
  summary: enabled ? 'turn telemetry on (recorded in the config file)' : 'turn telemetry off (recorded in the config file)',
  usage: `usage: memtrace telemetry ${enabled ? 'enable' : 'disable'}\n\nRecords the choice in DATA_DIR/telemetry.json (atomic write; the install id is kept).`,
  async run(args, io) {
    parseCommandArgs(args, {});
    const dataDir = dataDirOf(io);
    try {
      recordChoice(dataDir, enabled);
    } catch (error) {
      io.stderr.write(`memtrace telemetry: could not write the config: ${(error as Error).message}\n`);
      return EXIT_FAILURE;
    }
    const effective = resolveConsent({ env: io.env, file: readTelemetryConfig(dataDir).state });
    io.stdout.write(`telemetry ${enabled ? 'enabled' : 'disabled'} in the config file\n`);
    if (effective.enabled !== enabled) io.stdout.write(`note: ${effective.reason} overrides it, so telemetry is ${effective.enabled ? 'on' : 'off'}\n`);
    return EXIT_OK;
  },
});

const preview: Command = {
  name: 'preview',
  summary: 'the exact scrubbed payloads that would be sent next',
  usage: 'usage: memtrace telemetry preview [--json]\n\nPrints the events waiting in the outbox exactly as they would be sent.',
  async run(args, io) {
    const { values } = parseCommandArgs(args, jsonFlag);
    const events = await withTelemetry(io, (t) => t.preview(100));
    if (values.json) io.stdout.write(`${JSON.stringify(events, null, 2)}\n`);
    else if (events.length === 0) io.stdout.write('nothing waiting to be sent\n');
    else for (const e of events) io.stdout.write(`${e.timestamp} ${e.event} ${e.uuid}\n${JSON.stringify(e.properties, null, 2)}\n\n`);
    return EXIT_OK;
  },
};

const flush: Command = {
  name: 'flush',
  summary: 'send due rollups now',
  usage: 'usage: memtrace telemetry flush\n\nSends the events due in the outbox now (needs MEMTRACE_POSTHOG_KEY).',
  async run(args, io) {
    parseCommandArgs(args, {});
    const result = await withTelemetry(io, (t) => t.flush(Date.now()));
    switch (result.status) {
      case 'sent':
        io.stdout.write(`sent ${result.events} event(s)\n`);
        return EXIT_OK;
      case 'local_only':
        io.stdout.write('local only: MEMTRACE_POSTHOG_KEY is not set, so there is nothing to send to\n');
        return EXIT_OK;
      case 'notice_pending':
        io.stdout.write('nothing sent: the first-run notice has not been shown yet (start the worker once)\n');
        return EXIT_OK;
      case 'nothing_due':
        io.stdout.write('nothing due\n');
        return EXIT_OK;
      case 'failed':
        io.stderr.write(`flush failed: ${result.error}; ${result.pending} event(s) kept for a later try\n`);
        return EXIT_FAILURE;
    }
  },
};

const schema: Command = {
  name: 'schema',
  summary: 'the event catalogue, generated from the schema',
  usage: 'usage: memtrace telemetry schema [--json | --markdown]',
  async run(args, io) {
    const { values } = parseCommandArgs(args, { json: { type: 'boolean' }, markdown: { type: 'boolean' } });
    if (values.json && values.markdown) throw new UsageError('choose one of --json and --markdown');
    io.stdout.write(values.json ? `${JSON.stringify(renderSchemaJson(), null, 2)}\n` : values.markdown ? renderSchemaMarkdown() : `${renderSchemaText()}\n`);
    return EXIT_OK;
  },
};

export const telemetryCommand = commandGroup('telemetry', 'what memtrace shares, and the switches for it', [
  status,
  choice(true),
  choice(false),
  preview,
  flush,
  schema,
]);
