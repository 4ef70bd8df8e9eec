import { readSync } from 'node:fs';
import { DEFAULT_PORT, loadWorkerConfig, parsePort } from '../config.js';
import { readAuthToken } from '../data-dir/auth-token.js';
import { isHostName, type HostName } from '../hosts/platforms.js';
import { HOOK_COMMAND_NAMES, type ClaudeHookEvent } from '../install/hook-definitions.js';
import { HOOK_EVENT_OF, HOOK_NAMES, planHook, type HookCall, type HookName } from './hook-plan.js';
import { createHookTransport } from './hook-transport.js';

/**
 * `memtrace hook <event>`: the one command Claude Code runs on every tool call, so it loads only
 * node:http, node:fs and a few small modules — no CLI framework, zod, SQLite or fetch.
 * It always exits 0 (a hook must never break the agent); an event the worker cannot take now is
 * spooled to DATA_DIR/spool and replayed by the worker later.
 */
export interface HookIO {
  stdin: NodeJS.ReadableStream;
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
  env: Record<string, string | undefined>;
  /** bin/memtrace.cjs, to start the worker from session-start (the bin passes its own path). */
  memtraceBin?: string;
}

export const HOOK_USAGE = `usage: memtrace hook <${HOOK_NAMES.join('|')}> [--via plugin|settings]
       memtrace hook --host gemini-cli|codex <event> [--via settings]

Reads one hook event (JSON on stdin) and forwards it to the worker on 127.0.0.1 with the install
token from the data dir. --host names the agent (default claude-code); <event> is memtrace's name
(post-tool-use) or the host's own (AfterTool, PostToolUse). session-start prints the context the
way the host expects, and starts the worker when it is not running. A hook never blocks the agent
for long: it gives up after MEMTRACE_HOOK_TIMEOUT_MS (default 2000) and always exits 0; an event
the worker could not take is kept in DATA_DIR/spool and replayed when the worker runs. On
gemini-cli, which shows a hook's stderr to the user, warnings go to DATA_DIR/logs/hooks.log.`;

const MAX_HOOK_INPUT = 64 * 1024 * 1024;
/** The worker's body limit (1 MiB) less room for headers of the JSON envelope. */
const MAX_BODY = 1024 * 1024 - 8 * 1024;
const VIA = new Set(['plugin', 'settings']);

export async function runHook(args: string[], io: HookIO): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(`${HOOK_USAGE}\n`);
    return 0;
  }
  const env = io.env;
  const port = parsePort(env.MEMTRACE_PORT ?? '') ?? DEFAULT_PORT;
  const home = env.HOME || (await import('node:os')).homedir();
  const loaded = loadWorkerConfig({ MEMTRACE_DATA_DIR: env.MEMTRACE_DATA_DIR }, home);
  const dataDir = loaded.ok ? loaded.config.dataDir : `${home}/.memtrace`;
  const timeoutMs = Number(env.MEMTRACE_HOOK_TIMEOUT_MS) > 0 ? Number(env.MEMTRACE_HOOK_TIMEOUT_MS) : 2_000;

  const parsed = parseHookArgs(args);
  const host = parsed.host;
  // Gemini CLI shows a hook's stderr to the user when its stdout is empty: warnings go to a log there.
  const warn =
    host === 'gemini-cli'
      ? async (line: string) => (await import('./hook-log.js')).appendHookLog(dataDir, `memtrace hook --host gemini-cli: ${line}`, Date.now())
      : (line: string) => void io.stderr.write(`memtrace: ${line}\n`);
  if ('error' in parsed) {
    // Another host may read exit code 2 as "block the agent": there a bad command is a warning.
    if (host !== 'claude-code') {
      await warn(`${parsed.error}; event not recorded`);
      return 0;
    }
    io.stderr.write(`memtrace hook: ${parsed.error}\n\n${HOOK_USAGE}\n`);
    return 2;
  }
  const { host: agent, name, via } = parsed;

  let input: Record<string, unknown>;
  try {
    const value = JSON.parse(await readBounded(io.stdin, MAX_HOOK_INPUT)) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
    input = value as Record<string, unknown>;
  } catch (error) {
    await warn(`hook input is not valid JSON (${error instanceof Error ? error.message : String(error)}); event not recorded`);
    return 0;
  }
  const planned = await planFor(agent, name, input);
  if (!planned.ok) {
    await warn(`${planned.reason}; event not recorded`);
    return 0;
  }
  if (planned.calls === null) return 0;
  const { calls, printContext, hookEvent, contextOutput } = planned;
  const startsSession = hookEvent === 'session_start';

  const token = readAuthToken(dataDir);
  const transport = createHookTransport(port, Date.now() + timeoutMs);
  const headers: Record<string, string> = {
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    'x-memtrace-hook-event': hookEvent,
    'x-memtrace-hook-via': via,
    ...(agent === 'claude-code' ? {} : { 'x-memtrace-hook-host': agent }),
    // When this process started: the worker measures the hook's cost from start to reply.
    'x-memtrace-hook-started': String(Math.round(performance.timeOrigin)),
  };
  try {
    for (const [index, call] of calls.entries()) {
      let body = call.body ? JSON.stringify(call.body) : null;
      let shortened = false;
      if (body !== null && body.length * 3 > MAX_BODY && Buffer.byteLength(body) > MAX_BODY) {
        const fitted = (await import('./shorten-payload.js')).shortenToFit(call.body!, MAX_BODY);
        body = JSON.stringify(fitted.body);
        shortened = fitted.shortened;
      }
      const response = await transport.request(call.method, call.path, shortened ? { ...headers, 'x-memtrace-hook-shortened': '1' } : headers, body);
      if (!response.ok) {
        if (startsSession && response.failure === 'unreachable' && io.memtraceBin) (await import('./start-worker.js')).spawnWorkerDetached(io.memtraceBin, dataDir, env);
        const { spoolCall } = await import('../data-dir/spool.js');
        const kept = calls.slice(index).filter((c) => c.method === 'POST');
        for (const c of kept) spoolCall(dataDir, { method: 'POST', path: c.path, body: c.body ?? {}, hook_event: hookEvent, via, ...(agent === 'claude-code' ? {} : { host: agent }), failure: response.failure, at: Date.now() });
        await warn(
          response.failure === 'unreachable'
            ? `worker not reachable at 127.0.0.1:${port}${startsSession ? ' (starting it now)' : ''}; event kept in ${dataDir}/spool and replayed when the worker runs`
            : `worker did not answer within ${timeoutMs} ms; event kept in ${dataDir}/spool`,
        );
        return 0;
      }
      if (response.status < 200 || response.status >= 300) {
        await warn(`worker answered ${response.status} for ${call.path.split('?')[0]}${response.status === 401 ? ' (the install token does not match: is MEMTRACE_DATA_DIR the worker’s?)' : ''}: ${response.body.slice(0, 300)}`);
        return 0;
      }
      if (printContext && call.method === 'GET' && response.body.trim() !== '') io.stdout.write(contextOutput(response.body));
    }
  } finally {
    transport.close();
  }
  return 0;
}

type Planned =
  | { ok: true; calls: HookCall[]; printContext: boolean; hookEvent: string; contextOutput(markdown: string): string }
  | { ok: true; calls: null }
  | { ok: false; reason: string };

/** Claude Code's payloads go through hook-plan.ts; another host's through its adapter (host-hook-plan.ts). */
async function planFor(host: HostName, name: string, input: Record<string, unknown>): Promise<Planned> {
  if (host !== 'claude-code') return (await import('./host-hook-plan.js')).planHostHook(host, name, input);
  const claudeName = name as HookName;
  // Rarely needed parts load only when needed: this command runs on every tool call.
  const fallback = claudeName === 'stop' && typeof input.last_assistant_message !== 'string' ? { lastAssistantMessage: (await import('../hosts/claude-code/transcript-tail.js')).readLastAssistantText(input.transcript_path) } : {};
  const plan = planHook(claudeName, input, fallback);
  if (!plan.ok) return plan;
  return {
    ok: true,
    calls: plan.calls,
    printContext: plan.printContext,
    hookEvent: HOOK_EVENT_OF[claudeName],
    contextOutput: (markdown) => `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: markdown } })}\n`,
  };
}

type ParsedArgs = { host: HostName; name: string; via: string } | { host: HostName | 'unknown'; error: string };

function parseHookArgs(args: string[]): ParsedArgs {
  let host: HostName | 'unknown' = 'claude-code';
  let via = 'unknown';
  const positional: string[] = [];
  let problem: string | null = null;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '--host' || arg.startsWith('--host=')) {
      const value = arg === '--host' ? args[(i += 1)] : arg.slice(7);
      if (isHostName(value)) host = value;
      else {
        host = 'unknown';
        problem ??= `--host takes claude-code, gemini-cli or codex${value === undefined ? '' : `, got '${value}'`}`;
      }
    } else if (arg === '--via' || arg.startsWith('--via=')) {
      const value = arg === '--via' ? args[(i += 1)] : arg.slice(6);
      if (value === undefined || !VIA.has(value)) problem ??= '--via takes plugin or settings';
      else via = value;
    } else if (arg.startsWith('-')) problem ??= `unexpected argument '${arg}'`;
    else positional.push(arg);
  }
  const [given, extra] = positional;
  // Claude Code's own event names (SessionStart) stand for memtrace's (session-start).
  const name = host === 'claude-code' && given !== undefined && Object.hasOwn(HOOK_COMMAND_NAMES, given) ? HOOK_COMMAND_NAMES[given as ClaudeHookEvent] : given;
  if (problem === null && name === undefined) problem = host === 'claude-code' ? `which hook? give one of ${HOOK_NAMES.join(', ')}` : 'which hook event?';
  if (problem === null && extra !== undefined) problem = `unexpected argument '${extra}'`;
  if (problem === null && host === 'claude-code' && !(HOOK_NAMES as readonly string[]).includes(name!)) problem = `unknown hook '${name}'`;
  return problem !== null ? { host, error: problem } : { host: host as HostName, name: name!, via };
}

async function readBounded(stream: NodeJS.ReadableStream, maxBytes: number): Promise<string> {
  // The process's own stdin (a pipe from the host) is read with blocking reads: setting up a
  // stream and its async iterator costs the hook more than the read. A non-blocking stdin
  // (Gemini CLI's) answers EAGAIN once it is empty while the host still writes: what was read
  // so far is kept and the rest comes through the stream.
  const chunks: Buffer[] = [];
  let total = 0;
  const keep = (buffer: Buffer) => {
    total += buffer.length;
    if (total > maxBytes) throw new Error(`input is larger than ${maxBytes} bytes`);
    chunks.push(buffer);
  };
  if (stream === process.stdin) {
    const buffer = Buffer.allocUnsafe(1024 * 1024);
    for (;;) {
      let n: number;
      try {
        n = readSync(0, buffer, 0, buffer.length, null);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') break;
        if (code === 'EOF') return Buffer.concat(chunks).toString('utf8');
        throw error;
      }
      if (n === 0) return Buffer.concat(chunks).toString('utf8');
      keep(Buffer.from(buffer.subarray(0, n)));
    }
  }
  for await (const chunk of stream) keep(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
