import fs from 'node:fs';
import { EXIT_OK, parseCommandArgs, UsageError, type Command } from '../command.js';
import { HOOK_NAMES, lastAssistantText, planHook, type HookName } from '../hook-events.js';
import { readAll } from '../read-stdin.js';
import os from 'node:os';
import { DEFAULT_PORT, loadWorkerConfig, parsePort } from '../../config.js';
import { readAuthToken } from '../../data-dir/index.js';

const MAX_HOOK_INPUT = 4 * 1024 * 1024;
const TRANSCRIPT_TAIL_BYTES = 256 * 1024;

const USAGE = `usage: memtrace hook <${HOOK_NAMES.join('|')}>

Reads the Claude Code hook JSON on stdin and forwards it to the worker on 127.0.0.1.
session-start prints the injected context the way Claude Code expects. A hook never blocks
the agent: it gives up after MEMTRACE_HOOK_TIMEOUT_MS (default 2000) and always exits 0.`;

export const hookCommand: Command = {
  name: 'hook',
  summary: 'forward a Claude Code hook event to the worker',
  usage: USAGE,
  async run(args, io) {
    const { positionals } = parseCommandArgs(args, {}, { maxPositionals: 1 });
    const name = positionals[0];
    if (name === undefined) throw new UsageError('which hook? give one of ' + HOOK_NAMES.join(', '));
    if (!(HOOK_NAMES as readonly string[]).includes(name)) throw new UsageError(`unknown hook '${name}'`);
    const port = parsePort(io.env.MEMTRACE_PORT ?? '') ?? DEFAULT_PORT;
    const loaded = loadWorkerConfig(io.env, os.homedir());
    const token = loaded.ok ? readAuthToken(loaded.config.dataDir) : null;
    const base = `http://127.0.0.1:${port}`;
    const timeoutMs = Number(io.env.MEMTRACE_HOOK_TIMEOUT_MS) > 0 ? Number(io.env.MEMTRACE_HOOK_TIMEOUT_MS) : 2_000;
    const warn = (line: string) => io.stderr.write(`memtrace: ${line}\n`);

    let input: Record<string, unknown>;
    try {
      const parsed = JSON.parse(await readAll(io.stdin, MAX_HOOK_INPUT)) as unknown;
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      input = parsed as Record<string, unknown>;
    } catch (error) {
      warn(`hook input is not valid JSON (${error instanceof Error ? error.message : String(error)}); event not recorded`);
      return EXIT_OK;
    }
    const plan = planHook(name as HookName, input, name === 'stop' ? { lastAssistantMessage: readTranscriptTail(input.transcript_path) } : {});
    if (!plan.ok) {
      warn(`${plan.reason}; event not recorded`);
      return EXIT_OK;
    }
    const deadline = AbortSignal.timeout(timeoutMs);
    for (const call of plan.calls) {
      let response: Response;
      try {
        response = await fetch(`${base}${call.path}`, {
          method: call.method,
          headers: { ...(call.body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
          ...(call.body ? { body: JSON.stringify(call.body) } : {}),
          signal: deadline,
        });
      } catch {
        warn(`worker not reachable at ${base} (start it with 'memtrace worker'); event not recorded`);
        return EXIT_OK;
      }
      const text = await response.text().catch(() => '');
      if (!response.ok) {
        warn(`worker answered ${response.status} for ${call.path.split('?')[0]}: ${text.slice(0, 300)}`);
        return EXIT_OK;
      }
      if (plan.printContext && call.method === 'GET' && text.trim() !== '') {
        io.stdout.write(`${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: text } })}\n`);
      }
    }
    return EXIT_OK;
  },
};

/** The transcript's tail only: transcripts grow large and a hook must stay fast. */
function readTranscriptTail(transcriptPath: unknown): string | null {
  if (typeof transcriptPath !== 'string' || transcriptPath === '') return null;
  try {
    const fd = fs.openSync(transcriptPath, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const length = Math.min(size, TRANSCRIPT_TAIL_BYTES);
      const buffer = Buffer.alloc(length);
      fs.readSync(fd, buffer, 0, length, size - length);
      return lastAssistantText(buffer.toString('utf8'));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}
