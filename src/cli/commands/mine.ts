import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EXIT_FAILURE, EXIT_OK, parseCommandArgs, UsageError, type CliIO, type Command } from '../command.js';
import { loadWorkerConfig } from '../../config.js';
import { openStore } from '../../store/index.js';
import { isObserverScratch } from '../../data-dir/index.js';
import { startCheckpointer } from '../../store/checkpointer.js';
import { addCounts, totalRedactions, type RedactionCounts } from '../../redaction/index.js';
import { redactionIncrements } from '../../telemetry/index.js';
import { createTelemetry } from '../../telemetry/runtime.js';
import { silentLogger } from '../../log.js';
import { systemClock } from '../../clock.js';
import { APP_VERSION } from '../../version.js';
import { createProjectResolver } from '../../worker/project-of.js';
import { HOSTS, isHostName, type HostName } from '../../hosts/index.js';
import {
  createMiner,
  createStoreMiningStore,
  codexSessionIdOfPath,
  copilotSessionIdOfPath,
  defaultHostTranscriptRoot,
  defaultProjectsDir,
  discoverHostTranscripts,
  discoverTranscripts,
  hostOfTranscriptPath,
  piSessionIdOfPath,
  miningRollupIncrements,
  passHasActivity,
  sessionIdOfNamedFile,
  type PassReport,
  type TranscriptTarget,
} from '../../mining/index.js';
import { createProgressBar } from '../progress-bar.js';
import { workerHealth } from '../worker-health.js';

/** Projects by repository root, as the worker keys them. */
const projectOf = createProjectResolver();

const USAGE = `usage: memtrace mine [--host claude-code|gemini-cli|codex|opencode|copilot|pi|all] [--dir DIR | --file FILE] [--json]

Mines agent transcripts once. Every tool call the hooks missed (the worker was down, a payload
was too large, the session predates the install, it was killed, it ran on another machine) is
queued for observation; calls the hooks delivered are recognised by their tool id and not
queued twice. Claude Code transcripts are mined segment by segment (segments mined before are
not read again); Gemini CLI chat files, Codex rollouts, Copilot CLI session logs, pi session
files and OpenCode sessions (read from OpenCode's SQLite store, read-only) are read whole when
they changed (a Copilot call its hook delivered is also named by its own id then). An unchanged
file costs one stat (an OpenCode store, one query). Safe while a worker runs on the same data
dir: this command only queues; the worker observes.

options:
  --host H     whose transcripts: claude-code, gemini-cli, codex, opencode, copilot, pi, or all
               (default: every host whose folder exists)
  --dir DIR    transcripts folder of --host (default claude-code): Claude Code's projects folder
               ($CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects), Gemini CLI's ~/.gemini/tmp,
               Codex's $CODEX_HOME/sessions (~/.codex/sessions), OpenCode's data folder holding
               opencode.db ($XDG_DATA_HOME/opencode, else ~/.local/share/opencode; $OPENCODE_DB
               names the store), Copilot CLI's $COPILOT_HOME/session-state
               (~/.copilot/session-state), pi's sessions folder (~/.pi/agent/sessions); one
               project's (or session's) folder works too
  --file FILE  one transcript (e.g. a hook's transcript_path, or an OpenCode store: all its
               sessions); its host is read from its name
  --json       print the summary as JSON
  -h, --help   show this help

environment: MEMTRACE_DATA_DIR (where events are queued), CLAUDE_CONFIG_DIR, CODEX_HOME,
XDG_DATA_HOME and OPENCODE_DB (OpenCode), COPILOT_HOME, PI_CODING_AGENT_DIR and
PI_CODING_AGENT_SESSION_DIR (pi).`;

/** How a file given with --file names its session, by host (a Gemini chat file's id is its first line's, an OpenCode store's sessions theirs, read later). */
const NAMED_FILE: Readonly<Record<HostName, { sessionId(file: string): string | null; form: string }>> = {
  'claude-code': { sessionId: (file) => sessionIdOfNamedFile(path.basename(file)), form: 'a transcript <session-id>.jsonl' },
  'gemini-cli': { sessionId: () => 'pending', form: 'a Gemini CLI chat file' },
  codex: { sessionId: codexSessionIdOfPath, form: 'a Codex rollout-<time>-<session id>.jsonl' },
  copilot: { sessionId: copilotSessionIdOfPath, form: 'a Copilot CLI session log session-state/<session id>/events.jsonl' },
  pi: { sessionId: piSessionIdOfPath, form: 'a pi session file <time>_<session id>.jsonl' },
  // An OpenCode store holds many sessions: each is named as it is read.
  opencode: { sessionId: () => 'pending', form: 'an OpenCode store opencode*.db' },
};

export const mineCommand: Command = {
  name: 'mine',
  summary: 'mine agent transcripts once (Claude Code, Gemini CLI, Codex, OpenCode, Copilot CLI, pi; --host, --dir)',
  usage: USAGE,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { host: { type: 'string' }, dir: { type: 'string' }, file: { type: 'string' }, json: { type: 'boolean' } });
    if (values.dir !== undefined && values.file !== undefined) throw new UsageError('give --dir or --file, not both');
    if (values.dir === '') throw new UsageError('--dir needs a folder');
    if (values.host !== undefined && values.host !== 'all' && !isHostName(values.host)) {
      throw new UsageError(`--host takes ${HOSTS.join(', ')} or all, got '${values.host}'`);
    }
    if (values.host === 'all' && values.dir !== undefined) throw new UsageError(`--dir is one host’s folder: give --host ${HOSTS.join(', ')} with it`);
    const chosen = values.host === undefined || values.host === 'all' ? null : values.host;
    let named: { path: string; sessionId: string; host: HostName } | null = null;
    if (values.file !== undefined) {
      const file = path.resolve(io.cwd, values.file);
      const host = chosen ?? (/\.db$/.test(file) ? 'opencode' : hostOfTranscriptPath(file));
      const naming = NAMED_FILE[host];
      const sessionId = naming.sessionId(file);
      if (sessionId === null) throw new UsageError(`--file must name ${naming.form}, got '${values.file}'`);
      named = { path: file, sessionId, host };
    }
    const loaded = loadWorkerConfig(io.env, os.homedir());
    if (!loaded.ok) {
      for (const error of loaded.errors) io.stderr.write(`memtrace mine: ${error}\n`);
      return EXIT_FAILURE;
    }
    const home = io.env.HOME || os.homedir();
    const rootOf = (host: HostName) => (host === 'claude-code' ? defaultProjectsDir(io.env, home) : defaultHostTranscriptRoot(host, io.env, home));

    const startedMs = Date.now();
    let targets: TranscriptTarget[];
    if (named) {
      let stat: fs.Stats;
      try {
        stat = fs.statSync(named.path);
      } catch (error) {
        io.stderr.write(
          `memtrace mine: cannot read ${named.path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}\n`,
        );
        return EXIT_FAILURE;
      }
      if (!stat.isFile()) {
        io.stderr.write(`memtrace mine: ${named.path} is not a file\n`);
        return EXIT_FAILURE;
      }
      if (named.host === 'gemini-cli') {
        const listed = (await discoverHostTranscripts('gemini-cli', path.dirname(named.path))).targets.find((t) => t.path === named!.path);
        if (!listed) {
          io.stderr.write(`memtrace mine: ${named.path} does not start like a Gemini CLI chat file (no sessionId on its first line)\n`);
          return EXIT_FAILURE;
        }
        targets = [listed];
      } else if (named.host === 'opencode') {
        const listed = await discoverHostTranscripts('opencode', named.path);
        if (listed.problems.length > 0) {
          io.stderr.write(`memtrace mine: ${named.path} cannot be read as an OpenCode store: ${listed.problems[0]!.error}\n`);
          return EXIT_FAILURE;
        }
        targets = listed.targets;
      } else targets = [{ ...named, size: stat.size, mtimeMs: stat.mtimeMs }];
    } else {
      // Without --host every host's folder is looked at, and a host not installed here is skipped.
      const hosts: HostName[] = chosen ? [chosen] : [...HOSTS];
      const explicit = chosen !== null;
      targets = [];
      const missing: string[] = [];
      for (const host of hosts) {
        const dir = values.dir !== undefined ? path.resolve(io.cwd, values.dir) : rootOf(host);
        const found = host === 'claude-code' ? await discoverTranscripts([dir]) : await discoverHostTranscripts(host, dir);
        const rootProblem = found.problems.find((p) => p.path === dir);
        if (rootProblem) {
          if (explicit || values.dir !== undefined) {
            io.stderr.write(
              `memtrace mine: cannot list ${dir}: ${rootProblem.error}${values.dir === undefined ? ` (no ${host} transcripts here? give --dir)` : ''}\n`,
            );
            return EXIT_FAILURE;
          }
          missing.push(dir);
          continue;
        }
        for (const problem of found.problems) io.stderr.write(`memtrace mine: skipped ${problem.path}: ${problem.error}\n`);
        targets.push(...found.targets);
      }
      if (missing.length === hosts.length) {
        io.stderr.write(`memtrace mine: no transcripts folder found (${missing.join(', ')}); give --dir (with --host for a host other than Claude Code)\n`);
        return EXIT_FAILURE;
      }
    }

    const { config } = loaded;
    // Like the worker: SQLite checkpoints on a thread, so the pass never pays for copying the WAL back.
    const store = openStore(config.dbFile, { recoverClaimed: false, backgroundCheckpoints: true });
    const checkpointer = startCheckpointer(config.dbFile, { onError: () => undefined });
    let report: PassReport;
    try {
      const redactions: RedactionCounts = {};
      const miner = createMiner(
        {},
        {
          store: createStoreMiningStore(store, {
            projectOf,
            excludedCwd: (cwd) => isObserverScratch(cwd, config.dataDir),
            redacted: (counts) => addCounts(redactions, counts),
          }),
          now: () => Date.now(),
          wake: () => undefined,
        },
      );
      const totalBytes = targets.reduce((sum, t) => sum + t.size, 0);
      const bar = isTerminal(io) && !values.json ? createProgressBar(io.stderr, { total: targets.length, totalBytes, now: () => Date.now() }) : null;
      const sizes = new Map(targets.map((t) => [t.path, t.size]));
      report = await miner.pass(targets, { onFile: (file) => bar?.file(sizes.get(file.path) ?? 0), onBytes: (n) => bar?.bytes(n) });
      bar?.done();
      if (passHasActivity(report)) recordTelemetry(io, config.dataDir, store.db, report, redactions);
    } finally {
      await checkpointer.stop();
      store.close();
    }
    const elapsedMs = Date.now() - startedMs;
    const workerUp = report.eventsQueued + report.summariesQueued > 0 ? await workerRunning(config.dataDir) : false;
    if (values.json) {
      io.stdout.write(`${JSON.stringify(toJson(report, elapsedMs, config.dbFile, workerUp), null, 2)}\n`);
    } else {
      io.stdout.write(renderText(report, elapsedMs, config.dbFile, workerUp));
    }
    return report.byOutcome.failed > 0 ? EXIT_FAILURE : EXIT_OK;
  },
};

function isTerminal(io: CliIO): boolean {
  return (io.stderr as { isTTY?: boolean }).isTTY === true;
}

function recordTelemetry(io: CliIO, dataDir: string, db: ReturnType<typeof openStore>['db'], report: PassReport, redactions: RedactionCounts): void {
  try {
    const telemetry = createTelemetry(
      { dataDir, env: io.env, appVersion: APP_VERSION, provider: 'none' },
      { db, clock: systemClock, log: silentLogger, stderr: io.stderr },
    );
    // The window is closed and sent by the worker's telemetry tick.
    telemetry.recordCounters('mining_rollup', { trigger: 'cli' }, miningRollupIncrements(report), Date.now());
    if (totalRedactions(redactions) > 0) telemetry.recordCounters('redaction_rollup', { edge: 'transcript' }, redactionIncrements(redactions), Date.now());
  } catch {
    // Telemetry never breaks a command.
  }
}

/** Whether this data dir's own worker runs and answers (its port from worker.json: not whatever holds MEMTRACE_PORT). */
async function workerRunning(dataDir: string): Promise<boolean> {
  const worker = await workerHealth(dataDir, 500);
  return worker.running && worker.health !== undefined;
}

function nextStep(report: PassReport, workerUp: boolean): string {
  const queued = report.eventsQueued + report.summariesQueued;
  if (queued === 0) return 'nothing new to observe.';
  if (workerUp) return `${queued} message(s) queued. The running worker picks them up within 30 s.`;
  return `${queued} message(s) queued. Start the worker ('memtrace worker') to observe them.`;
}

function toJson(report: PassReport, elapsedMs: number, dbFile: string, workerUp: boolean) {
  return {
    files: report.files,
    files_unchanged: report.byOutcome.unchanged,
    files_mined: report.byOutcome.mined,
    files_migrated: report.byOutcome.migrated,
    files_failed: report.byOutcome.failed,
    segments_mined: report.segmentsMined,
    segments_failed: report.segmentsFailed,
    legacy_keys_migrated: report.legacyKeysMigrated,
    events_queued: report.eventsQueued,
    events_already_queued: report.eventsDuplicate,
    summaries_queued: report.summariesQueued,
    corrupt_lines: report.corruptLines,
    oversized_lines: report.oversizedLines,
    payloads_shortened: report.payloadsShortened,
    unpaired_calls: report.unpairedCalls,
    bytes_read: report.bytesRead,
    elapsed_ms: elapsedMs,
    database: dbFile,
    worker_running: workerUp,
    failures: report.failures.map((f) => ({ path: f.path, error: f.error })),
    next: nextStep(report, workerUp),
  };
}

function renderText(report: PassReport, elapsedMs: number, dbFile: string, workerUp: boolean): string {
  const mb = (report.bytesRead / 1e6).toFixed(1);
  const rows: Array<[string, string]> = [
    [
      'transcripts',
      `${report.files} (${report.byOutcome.mined} mined, ${report.byOutcome.unchanged} unchanged${report.byOutcome.migrated ? `, ${report.byOutcome.migrated} legacy keys migrated` : ''}${report.byOutcome.failed ? `, ${report.byOutcome.failed} failed` : ''})`,
    ],
    ['segments mined', String(report.segmentsMined)],
    ['events queued', `${report.eventsQueued} (tool calls the hooks missed)`],
    ['already queued', `${report.eventsDuplicate} (delivered by the hooks; not observed twice)`],
    ['summaries', `${report.summariesQueued} session summary request(s) queued`],
    ['skipped lines', `${report.corruptLines} corrupt or truncated, ${report.oversizedLines} over the size cap`],
    ['read', `${mb} MB in ${(elapsedMs / 1000).toFixed(1)} s`],
    ['database', dbFile],
  ];
  const lines = rows.map(([k, v]) => `${k.padEnd(16)} ${v}`);
  for (const f of report.failures) lines.push(`failed           ${f.path}: ${f.error}`);
  lines.push('', nextStep(report, workerUp));
  return `${lines.join('\n')}\n`;
}
