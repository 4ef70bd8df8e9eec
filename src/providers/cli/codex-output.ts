import { classifyHttpFailure } from '../errors.js';
import { nonNegativeInt } from '../http-call.js';
import { ProviderError, type CompletionUsage } from '../types.js';
import { jsonLines } from './json-lines.js';

/**
 * What `codex exec --json` printed (checked against Codex CLI 0.169.0): JSONL events. Success is
 * `turn.completed` with `usage`; the reply is the last `item.completed` of type `agent_message`.
 * A failure is `turn.failed` (and `error` events) whose only field is Codex's own `message`:
 * `codex exec` offers no structured error code. memtrace reads from those CLI-written messages —
 * never from the model's text — only the HTTP status in Codex's two fixed forms (`unexpected
 * status NNN …`, `last status: NNN …`) and its usage-limit notice; anything else is a transport
 * failure (docs/observer.md#codexs-failures).
 */
export interface CodexReply {
  text: string;
  usage: CompletionUsage | null;
}

const STATUS_FORMS = [/\bunexpected status (\d{3})\b/, /\blast status: (\d{3})\b/];
const USAGE_LIMIT_FORM = /\bhit your usage limit\b|\busage limit has been reached\b/i;
const MISSING_KEY_FORM = /^Missing environment variable: /;

export function readCodexOutput(stdout: string, exitCode: number | null, nowMs: number): CodexReply {
  const events = jsonLines(stdout);
  const completed = [...events].reverse().find((e) => e.type === 'turn.completed');
  if (completed && exitCode === 0) {
    const message = [...events].reverse().find((e) => e.type === 'item.completed' && (e.item as { type?: unknown } | undefined)?.type === 'agent_message');
    const text = (message?.item as { text?: unknown } | undefined)?.text;
    return { text: typeof text === 'string' ? text : '', usage: readUsage(completed.usage) };
  }
  const failed = [...events].reverse().find((e) => e.type === 'turn.failed');
  const message = String((failed?.error as { message?: unknown } | undefined)?.message ?? '');
  if (USAGE_LIMIT_FORM.test(message)) throw new ProviderError('quota', 'Codex: usage limit reached', { detail: 'usage_limit' });
  if (MISSING_KEY_FORM.test(message)) throw new ProviderError('auth', 'Codex: its provider key is not set', { detail: 'logged_out' });
  for (const form of STATUS_FORMS) {
    const status = Number(form.exec(message)?.[1] ?? Number.NaN);
    if (status >= 400 && status <= 599) {
      const typed = classifyHttpFailure({ status, body: null, retryAfter: null, nowMs });
      throw new ProviderError(typed.kind, `Codex: ${typed.message}`, { status });
    }
  }
  throw new ProviderError('transport', `codex exited ${exitCode ?? 'by a signal'} without a result`, { detail: 'cli_failed' });
}

function readUsage(usage: unknown): CompletionUsage | null {
  const u = usage as Record<string, unknown> | null | undefined;
  const input = nonNegativeInt(u?.input_tokens);
  const output = nonNegativeInt(u?.output_tokens);
  // Responses API counts cached input inside input_tokens and reasoning inside output_tokens.
  return input === null || output === null ? null : { inputTokens: input, outputTokens: output };
}
