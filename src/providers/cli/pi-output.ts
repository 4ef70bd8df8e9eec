import { classifyHttpFailure } from '../errors.js';
import { nonNegativeInt } from '../http-call.js';
import { ProviderError, type CompletionUsage } from '../types.js';
import { jsonLines } from './json-lines.js';

/**
 * What `pi --mode json` printed (checked against pi 0.73.1): one JSON event per line; the reply
 * is the last assistant `message_end` (`message.content` text blocks, `usage {input, output,
 * cacheRead, cacheWrite, cost.total}`, `model`). pi exits 0 even when the call failed: the
 * message then has `stopReason: "error"` and an `errorMessage` that pi's provider client writes
 * as `<HTTP status> <the API's message>`. Only that leading status is read from it (never model
 * text); without one the failure is a transport failure.
 */
export interface PiReply {
  text: string;
  usage: CompletionUsage | null;
  costUsd: number | null;
  model: string | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const STATUS_FORM = /^(\d{3})\b/;

export function readPiOutput(stdout: string, exitCode: number | null, nowMs: number): PiReply {
  const message = jsonLines(stdout)
    .filter((e) => e.type === 'message_end' && isObject(e.message) && e.message.role === 'assistant')
    .map((e) => e.message as Record<string, unknown>)
    .at(-1);
  if (!message) throw new ProviderError('transport', `pi exited ${exitCode ?? 'by a signal'} without a reply`, { detail: 'cli_failed' });
  if (message.stopReason === 'error' || message.stopReason === 'aborted') {
    const status = Number(STATUS_FORM.exec(typeof message.errorMessage === 'string' ? message.errorMessage : '')?.[1] ?? Number.NaN);
    if (status >= 400 && status <= 599) {
      const typed = classifyHttpFailure({ status, body: null, retryAfter: null, nowMs });
      throw new ProviderError(typed.kind, `pi: ${typed.message}`, { status });
    }
    throw new ProviderError('transport', 'pi: the call failed without an HTTP status', { detail: 'cli_failed' });
  }
  const text = (Array.isArray(message.content) ? message.content : [])
    .map((block) => (isObject(block) && block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .join('');
  const usage = isObject(message.usage) ? message.usage : {};
  const input = nonNegativeInt(usage.input);
  const output = nonNegativeInt(usage.output);
  const cost = isObject(usage.cost) && typeof usage.cost.total === 'number' && Number.isFinite(usage.cost.total) ? usage.cost.total : 0;
  return {
    text,
    usage:
      input === null || output === null
        ? null
        : { inputTokens: input + (nonNegativeInt(usage.cacheRead) ?? 0) + (nonNegativeInt(usage.cacheWrite) ?? 0), outputTokens: output },
    // pi prices from its model registry; a model it has no price for costs "0", which is unknown, not free.
    costUsd: cost > 0 ? cost : null,
    model: typeof message.model === 'string' ? message.model : null,
  };
}
