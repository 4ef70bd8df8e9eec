import fs from 'node:fs';
import path from 'node:path';
import { loadWorkerConfig } from '../config.js';
import { makePrivateDir, openPrivateFile } from '../data-dir/private-files.js';
import { dataDirIsPrivate, readContextFile, SOCKET_PATH_LIMIT, spoolHookEvent, WORKER_SOCKET, MAX_RAW_SPOOL_CHARS } from '../data-dir/index.js';
import { adapterFor } from '../hosts/registry.js';
import { HOSTS, isHostName, type HostName } from '../hosts/platforms.js';
import { readStartState, startProblemLine } from '../data-dir/start-state.js';
import { readHookInput, type HookInput } from './read-input.js';
import { postOverSocket } from './socket-request.js';

/**
 * `memtrace hook [--host H] <event>`: forwards one hook event to this data dir's worker. Agent
 * hosts normally run the shell forwarder (bin/memtrace-hook), which hands over to this command
 * only when it cannot deliver: no worker running, no curl, or a data dir it does not trust. It
 * loads no CLI framework, zod or SQLite: it reads every byte of its input, streams it to the
 * worker over the socket inside the data dir (the worker maps the host's payload), and when that
 * fails keeps the event in DATA_DIR/spool for the worker to replay. It always exits 0.
 */
export interface HookIO {
  stdin: NodeJS.ReadableStream;
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
  env: Record<string, string | undefined>;
  cwd?: string;
  /** bin/memtrace.cjs, to start the worker from session start (the bin passes its own path). */
  memtraceBin?: string;
}

export const HOOK_USAGE = `usage: memtrace hook [--host ${HOSTS.join('|')}] <event> [--via plugin|settings]

Reads one hook event of the agent host (JSON on stdin; default host claude-code) and forwards it
to this data dir's worker over the Unix socket in the data dir. <event> is memtrace's name
(session-start, post-tool-use, …) or the host's own (SessionStart, AfterTool, …). At session
start it prints the context in the form the host reads (with one line on top when the worker
cannot start). When the worker is not running it starts it, at most once per step of a backoff
every hook shares (DATA_DIR/worker-start.json). It gives up after MEMTRACE_HOOK_TIMEOUT_MS
(default 2000) and always exits 0; an event the worker could not take is kept in DATA_DIR/spool
and replayed when the worker runs.`;

/** The most a hook reads of its input; beyond it, the worker keeps the event by identity and excerpt. */
export const MAX_HOOK_INPUT_BYTES = 64 * 1024 * 1024;
const VIA = new Set(['plugin', 'settings']);

interface HookArgs {
  host: HostName;
  event: string;
  via: string;
  /** Set by the shell forwarder when it already printed the kept context itself. */
  contextPrinted: boolean;
  /**
   * When the host fired the hook (ms since the epoch), from a forwarder that handed the event
   * over in the background: the spool keeps events in the order they were fired.
   */
  firedAtMs: number | null;
}

export async function runHook(args: string[], io: HookIO): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(`${HOOK_USAGE}\n`);
    return 0;
  }
  const env = io.env;
  // The observer's own CLI session (memtrace running a host CLI headless) is never captured.
  if (env.MEMTRACE_OBSERVER_SESSION) return 0;
  const home = env.HOME || (await import('node:os')).homedir();
  const loaded = loadWorkerConfig({ MEMTRACE_DATA_DIR: env.MEMTRACE_DATA_DIR }, home);
  const dataDir = loaded.ok ? loaded.config.dataDir : path.join(home, '.memtrace');
  const parsed = parseHookArgs(args);
  if ('error' in parsed) {
    // A hook never blocks the agent, even when it is set up wrong: hosts read exit code 2 as "block".
    const host = parsed.host ?? 'claude-code';
    warnTo(
      io,
      host === 'gemini-cli' && dataDirIsPrivate(dataDir) ? path.join(dataDir, 'logs') : null,
      host,
      `hook: ${parsed.error} (run 'memtrace hook --help')`,
    );
    return 0;
  }
  let logDir: string | null = null;
  const warn = (line: string) => warnTo(io, logDir, parsed.host, line);
  const timeoutMs = Number(env.MEMTRACE_HOOK_TIMEOUT_MS) > 0 ? Number(env.MEMTRACE_HOOK_TIMEOUT_MS) : 2_000;

  const kind = adapterFor(parsed.host)?.kindOf(parsed.event) ?? null;
  const input = await readHookInput(io.stdin, MAX_HOOK_INPUT_BYTES);
  if (kind === null) return 0; // a host event memtrace does not handle

  const ownership = claimDataDir(dataDir);
  if (ownership === 'ours') logDir = path.join(dataDir, 'logs');
  else {
    warn(`data dir ${dataDir} ${ownership}; the event was not recorded (set MEMTRACE_DATA_DIR to a directory only you can write)`);
    return 0;
  }
  const body = input.complete ? input.bytes : Buffer.from(JSON.stringify({ memtrace_oversized: true }));
  // Handed over in the background, this process's time is not the agent's: no time is reported.
  const headers: Record<string, string> = {
    'x-memtrace-hook-via': parsed.via,
    ...(parsed.firedAtMs === null ? { 'x-memtrace-hook-started': String(Math.round(performance.timeOrigin)) } : {}),
    // Which install this hook runs from: a worker older than it hands over (docs/interfaces.md#upgrades).
    ...(io.memtraceBin ? { 'x-memtrace-bin': path.dirname(io.memtraceBin) } : {}),
  };
  const response = input.complete
    ? await postOverSocket(socketAddress(dataDir), `/hook/${parsed.host}/${encodeURIComponent(parsed.event)}`, headers, body, Date.now() + timeoutMs)
    : ({ ok: false, failure: 'unreachable', detail: 'over the input limit' } as const);
  if (response.ok && response.status < 300) {
    if (response.body !== '') io.stdout.write(response.body);
    return 0;
  }
  // The worker keeps what it cannot read itself (and says so with a 400): anything else is spooled.
  if (response.ok && response.status === 400) {
    warn(`the worker could not read this ${parsed.event} event: ${response.body.slice(0, 300)}`);
    return 0;
  }
  const failure = response.ok ? 'refused' : input.complete ? response.failure : 'unreachable';
  const workerDown = !response.ok && response.failure === 'unreachable';
  const nowMs = Date.now();
  if (kind === 'session_start' && workerDown && !parsed.contextPrinted) {
    // What keeps the worker from running, said once per session in the context the agent reads.
    const problem = startProblemLine(readStartState(dataDir), dataDir, nowMs);
    const kept = withNotice(readContextFile(dataDir, contextCwd(input, io), adapterFor(parsed.host)?.contextVariant ?? null), problem, parsed.host);
    if (kept) io.stdout.write(kept);
  }
  const readable = spool(dataDir, parsed, input, failure, Math.round(parsed.firedAtMs ?? nowMs));
  // Any hook may start the worker, within the schedule every hook shares (a crashed worker comes back mid-session).
  const started = workerDown && io.memtraceBin ? (await import('./start-worker.js')).startWorkerIfDue(io.memtraceBin, dataDir, env, nowMs) : null;
  if (!readable) warn(`this ${parsed.event} input is not valid JSON; it is kept, as text, for the worker to count and set aside`);
  warn(
    workerDown
      ? `worker not running on ${dataDir}${started ? ` (starting memtrace ${started.version} now)` : ''}; event kept in ${dataDir}/spool and replayed when the worker runs`
      : response.ok
        ? `worker answered ${response.status}; event kept in ${dataDir}/spool`
        : `worker did not answer within ${timeoutMs} ms; event kept in ${dataDir}/spool`,
  );
  return 0;
}

function parseHookArgs(args: string[]): HookArgs | { error: string; host?: HostName } {
  let host: HostName = 'claude-code';
  let via = 'unknown';
  let contextPrinted = false;
  let firedAtMs: number | null = null;
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    const value = () => {
      i += 1;
      return args[i];
    };
    if (arg === '--host' || arg.startsWith('--host=')) {
      const name = arg === '--host' ? value() : arg.slice(7);
      if (!isHostName(name)) return { error: `--host takes ${HOSTS.slice(0, -1).join(', ')} or ${HOSTS.at(-1)}` };
      host = name;
    } else if (arg === '--via' || arg.startsWith('--via=')) {
      const name = arg === '--via' ? value() : arg.slice(6);
      if (name === undefined || !VIA.has(name)) return { error: '--via takes plugin or settings' };
      via = name;
    } else if (arg === '--context-printed') contextPrinted = true;
    else if (arg === '--fired-at' || arg.startsWith('--fired-at=')) {
      const ms = Number(arg === '--fired-at' ? value() : arg.slice(11));
      if (!Number.isFinite(ms) || ms <= 0) return { error: '--fired-at takes a time in ms since the epoch' };
      firedAtMs = ms;
    } else if (arg.startsWith('-')) return { error: `unknown option '${arg}'` };
    else positionals.push(arg);
  }
  if (positionals.length === 0) return { error: 'which hook event? give one, e.g. session-start or PostToolUse', host };
  if (positionals.length > 1) return { error: `unexpected argument '${positionals[1]}'`, host };
  const event = positionals[0]!;
  // memtrace's own names must be known; a host's own event memtrace does not handle is read and ignored.
  const adapter = adapterFor(host);
  if ((adapter?.kindOf(event) ?? null) === null && !(adapter?.hostEventName ?? /^[A-Z][A-Za-z]{0,63}$/).test(event))
    return { error: `unknown hook '${event}'`, host };
  return { host, event, via, contextPrinted, firedAtMs };
}

/**
 * The data dir must be ours alone before an event goes in it or to a socket in it: created 0700
 * when missing, tightened when it is ours but loose, refused when someone else owns it.
 */
function claimDataDir(dataDir: string): 'ours' | 'is owned by another user' | 'cannot be created' {
  try {
    makePrivateDir(dataDir);
  } catch {
    return 'cannot be created';
  }
  if (dataDirIsPrivate(dataDir)) return 'ours';
  try {
    const stat = fs.lstatSync(dataDir);
    if (stat.isDirectory() && stat.uid === process.getuid?.()) {
      fs.chmodSync(dataDir, 0o700);
      return 'ours';
    }
  } catch {
    /* fall through */
  }
  return 'is owned by another user';
}

/** The socket's address; a data dir too long for one is entered and the name used relative to it. */
function socketAddress(dataDir: string): string {
  const full = path.join(dataDir, WORKER_SOCKET);
  if (Buffer.byteLength(full) <= SOCKET_PATH_LIMIT) return full;
  process.chdir(dataDir);
  return WORKER_SOCKET;
}

/** The kept context with the line about a worker that cannot start on top (in the host's SessionStart form). */
function withNotice(kept: string | null, notice: string | null, host: HostName): string | null {
  if (notice === null) return kept;
  let markdown = '';
  try {
    // Copilot CLI's kept context has additionalContext at the top; the other hosts' under hookSpecificOutput.
    const parsed = kept === null ? null : (JSON.parse(kept) as { hookSpecificOutput?: { additionalContext?: unknown }; additionalContext?: unknown });
    const context = parsed?.hookSpecificOutput?.additionalContext ?? parsed?.additionalContext;
    if (typeof context === 'string') markdown = context;
  } catch {
    /* a kept file that does not parse is left out rather than printed broken */
  }
  const adapter = adapterFor(host);
  return adapter ? adapter.contextOutput(`> ${notice}\n\n${markdown}`) : kept;
}

function contextCwd(input: HookInput, io: HookIO): string {
  if (input.complete) {
    try {
      const cwd = (JSON.parse(input.bytes.toString('utf8')) as { cwd?: unknown }).cwd;
      if (typeof cwd === 'string' && cwd !== '') return cwd;
    } catch {
      /* the hook runs in the session's directory */
    }
  }
  return io.cwd ?? process.cwd();
}

/** Keeps the event for the worker; false when its input was not JSON (kept as text). */
function spool(dataDir: string, args: HookArgs, input: HookInput, failure: 'unreachable' | 'timeout' | 'refused', at: number): boolean {
  const base = { v: 2 as const, host: args.host, event: args.event, via: args.via, at };
  if (!input.complete) {
    // Over the input limit: the worker keeps it by identity and excerpt, as it does live.
    spoolHookEvent(dataDir, {
      ...base,
      failure,
      oversized: { head: input.head.toString('utf8'), tail: input.tail.toString('utf8'), totalBytes: input.totalBytes },
    });
    return true;
  }
  const text = input.bytes.toString('utf8');
  try {
    spoolHookEvent(dataDir, { ...base, failure, payload: JSON.parse(text) as unknown });
    return true;
  } catch {
    // Not JSON: kept as text, bounded, for the worker to count and the user to see.
    const raw = text.length > MAX_RAW_SPOOL_CHARS ? `${text.slice(0, MAX_RAW_SPOOL_CHARS / 2)}\n…\n${text.slice(-MAX_RAW_SPOOL_CHARS / 2)}` : text;
    spoolHookEvent(dataDir, { ...base, failure: 'unreadable', raw, bytes: input.bytes.length });
    return false;
  }
}

/**
 * A hook's warning. Claude Code shows stderr only in its debug log, but Gemini CLI shows it to
 * the user when stdout is empty: there the line goes only to DATA_DIR/logs/hooks.log (written
 * only once the data dir is known to be ours).
 */
function warnTo(io: HookIO, logs: string | null, host: HostName, line: string): void {
  if (host !== 'gemini-cli' || logs === null) io.stderr.write(`memtrace: ${line}\n`);
  if (logs === null) return;
  try {
    const fd = openPrivateFile(path.join(logs, 'hooks.log'), 'a');
    try {
      fs.writeSync(fd, `${new Date().toISOString()} ${host} ${line}\n`);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    /* a hook never fails for its own log */
  }
}
