import { readFileSync } from 'node:fs';
import { DEFAULT_PORT, loadWorkerConfig, parsePort } from '../config.js';
import { readAuthToken } from '../data-dir/auth-token.js';
import { HOOK_EVENT_OF, HOOK_NAMES, planHook, type HookName } from './hook-plan.js';
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

Reads one Claude Code hook event (JSON on stdin) and forwards it to the worker on 127.0.0.1 with
the install token from the data dir. session-start prints the context the way Claude Code expects,
and starts the worker when it is not running. A hook never blocks the agent for long: it gives up
after MEMTRACE_HOOK_TIMEOUT_MS (default 2000) and always exits 0; an event the worker could not
take is kept in DATA_DIR/spool and replayed when the worker runs.`;

const MAX_HOOK_INPUT = 64 * 1024 * 1024;
/** The worker's body limit (1 MiB) less room for headers of the JSON envelope. */
const MAX_BODY = 1024 * 1024 - 8 * 1024;
const VIA = new Set(['plugin', 'settings']);

export async function runHook(args: string[], io: HookIO): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(`${HOOK_USAGE}\n`);
    return 0;
  }
  const parsed = parseHookArgs(args);
  if ('error' in parsed) {
    io.stderr.write(`memtrace hook: ${parsed.error}\n\n${HOOK_USAGE}\n`);
    return 2;
  }
  const { name, via } = parsed;
  const warn = (line: string) => io.stderr.write(`memtrace: ${line}\n`);
  const env = io.env;
  const port = parsePort(env.MEMTRACE_PORT ?? '') ?? DEFAULT_PORT;
  const home = env.HOME || (await import('node:os')).homedir();
  const loaded = loadWorkerConfig({ MEMTRACE_DATA_DIR: env.MEMTRACE_DATA_DIR }, home);
  const dataDir = loaded.ok ? loaded.config.dataDir : `${home}/.memtrace`;
  const timeoutMs = Number(env.MEMTRACE_HOOK_TIMEOUT_MS) > 0 ? Number(env.MEMTRACE_HOOK_TIMEOUT_MS) : 2_000;

  let input: Record<string, unknown>;
  try {
    const value = JSON.parse(await readBounded(io.stdin, MAX_HOOK_INPUT)) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
    input = value as Record<string, unknown>;
  } catch (error) {
    warn(`hook input is not valid JSON (${error instanceof Error ? error.message : String(error)}); event not recorded`);
    return 0;
  }
  // Rarely needed parts load only when needed: this command runs on every tool call.
  const fallback = name === 'stop' && typeof input.last_assistant_message !== 'string' ? { lastAssistantMessage: (await import('../hosts/claude-code/transcript-tail.js')).readLastAssistantText(input.transcript_path) } : {};
  const plan = planHook(name, input, fallback);
  if (!plan.ok) {
    warn(`${plan.reason}; event not recorded`);
    return 0;
  }

  const token = readAuthToken(dataDir);
  const transport = createHookTransport(port, Date.now() + timeoutMs);
  const headers: Record<string, string> = {
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    'x-memtrace-hook-event': HOOK_EVENT_OF[name],
    'x-memtrace-hook-via': via,
    // When this process started: the worker measures the hook's cost from start to reply.
    'x-memtrace-hook-started': String(Math.round(performance.timeOrigin)),
  };
  try {
    for (const [index, call] of plan.calls.entries()) {
      let body = call.body ? JSON.stringify(call.body) : null;
      let shortened = false;
      if (body !== null && body.length * 3 > MAX_BODY && Buffer.byteLength(body) > MAX_BODY) {
        const fitted = (await import('./shorten-payload.js')).shortenToFit(call.body!, MAX_BODY);
        body = JSON.stringify(fitted.body);
        shortened = fitted.shortened;
      }
      const response = await transport.request(call.method, call.path, shortened ? { ...headers, 'x-memtrace-hook-shortened': '1' } : headers, body);
      if (!response.ok) {
        if (name === 'session-start' && response.failure === 'unreachable' && io.memtraceBin) (await import('./start-worker.js')).spawnWorkerDetached(io.memtraceBin, dataDir, env);
        const { spoolCall } = await import('../data-dir/spool.js');
        const kept = plan.calls.slice(index).filter((c) => c.method === 'POST');
        for (const c of kept) spoolCall(dataDir, { method: 'POST', path: c.path, body: c.body ?? {}, hook_event: HOOK_EVENT_OF[name], via, failure: response.failure, at: Date.now() });
        warn(
          response.failure === 'unreachable'
            ? `worker not reachable at 127.0.0.1:${port}${name === 'session-start' ? ' (starting it now)' : ''}; event kept in ${dataDir}/spool and replayed when the worker runs`
            : `worker did not answer within ${timeoutMs} ms; event kept in ${dataDir}/spool`,
        );
        return 0;
      }
      if (response.status < 200 || response.status >= 300) {
        warn(`worker answered ${response.status} for ${call.path.split('?')[0]}${response.status === 401 ? ' (the install token does not match: is MEMTRACE_DATA_DIR the worker’s?)' : ''}: ${response.body.slice(0, 300)}`);
        return 0;
      }
      if (plan.printContext && call.method === 'GET' && response.body.trim() !== '') {
        io.stdout.write(`${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: response.body } })}\n`);
      }
    }
  } finally {
    transport.close();
  }
  return 0;
}

function parseHookArgs(args: string[]): { name: HookName; via: string } | { error: string } {
  const [name, ...rest] = args;
  if (name === undefined) return { error: `which hook? give one of ${HOOK_NAMES.join(', ')}` };
  if (!(HOOK_NAMES as readonly string[]).includes(name)) return { error: `unknown hook '${name}'` };
  let via = 'unknown';
  for (let i = 0; i < rest.length; i += 1) {
    const arg = rest[i]!;
    if (arg === '--via') {
      const value = rest[(i += 1)];
      if (value === undefined || !VIA.has(value)) return { error: `--via takes plugin or settings` };
      via = value;
    } else if (arg.startsWith('--via=') && VIA.has(arg.slice(6))) via = arg.slice(6);
    else return { error: `unexpected argument '${arg}'` };
  }
  return { name: name as HookName, via };
}

async function readBounded(stream: NodeJS.ReadableStream, maxBytes: number): Promise<string> {
  // The process's own stdin (a pipe from Claude Code) is read in one blocking call: setting up a
  // stream and its async iterator costs the hook more than the read. A non-blocking stdin
  // (EAGAIN) falls back to the stream.
  if (stream === process.stdin) {
    try {
      const buffer = readFileSync(0);
      if (buffer.length > maxBytes) throw new Error(`input is larger than ${maxBytes} bytes`);
      return buffer.toString('utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
    }
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    total += buffer.length;
    if (total > maxBytes) throw new Error(`input is larger than ${maxBytes} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
