import fs from 'node:fs';
import { classifyHttpFailure } from './errors.js';
import type { CompletionResult, ObserverProvider } from './types.js';

/**
 * Replays recorded observer outputs, one JSONL line per call, in order, starting over when
 * all were served. A line is `{"text", "usage"?: {"input_tokens","output_tokens"}, "cost_usd"?, "model"?}`
 * or `{"error": {"status", "type"?}}` to replay a provider failure.
 */
type ReplayLine = { kind: 'reply'; result: CompletionResult } | { kind: 'error'; status: number; type: string | null; retryAfter: string | null };

export class ReplayFileError extends Error {}

export function createReplayProvider(options: { file?: string; lines?: string[]; model?: string }): ObserverProvider {
  const model = options.model ?? 'replay';
  let rawLines: string[];
  const source = options.file ?? 'replay lines';
  if (options.lines) rawLines = options.lines;
  else if (options.file) {
    try {
      rawLines = fs.readFileSync(options.file, 'utf8').split('\n');
    } catch (error) {
      throw new ReplayFileError(`cannot read MEMTRACE_REPLAY_FILE ${options.file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  } else throw new ReplayFileError('the replay provider needs MEMTRACE_REPLAY_FILE');
  const script = rawLines.flatMap((line, index) => (line.trim() === '' ? [] : [parseLine(line, index + 1, source, model)]));
  if (script.length === 0) throw new ReplayFileError(`${source} holds no recorded replies`);
  let next = 0;
  return {
    name: 'replay',
    model,
    recordedReplies: script.flatMap((step) => (step.kind === 'reply' ? [step.result.text] : [])),
    async complete(request) {
      if (request.signal?.aborted) throw request.signal.reason;
      const step = script[next % script.length]!;
      next += 1;
      if (step.kind === 'error')
        throw classifyHttpFailure({
          status: step.status,
          body: step.type ? { error: { type: step.type } } : null,
          retryAfter: step.retryAfter,
          nowMs: Date.now(),
        });
      return step.result;
    },
  };
}

function parseLine(line: string, lineNumber: number, source: string, model: string): ReplayLine {
  const fail = (why: string) => new ReplayFileError(`${source} line ${lineNumber}: ${why}`);
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw fail('not valid JSON');
  }
  if (value === null || typeof value !== 'object') throw fail('expected an object');
  const record = value as Record<string, unknown>;
  if (record.error !== undefined) {
    const error = record.error as Record<string, unknown> | null;
    if (!error || typeof error.status !== 'number') throw fail('"error" needs a numeric "status"');
    return {
      kind: 'error',
      status: error.status,
      type: typeof error.type === 'string' ? error.type : null,
      retryAfter: typeof error.retry_after === 'string' ? error.retry_after : null,
    };
  }
  if (typeof record.text !== 'string') throw fail('needs "text" (a string) or "error"');
  const usage = record.usage as { input_tokens?: unknown; output_tokens?: unknown } | undefined;
  const known = usage && typeof usage.input_tokens === 'number' && typeof usage.output_tokens === 'number';
  return {
    kind: 'reply',
    result: {
      text: record.text,
      usage: known ? { inputTokens: usage.input_tokens as number, outputTokens: usage.output_tokens as number } : null,
      costUsd: typeof record.cost_usd === 'number' ? record.cost_usd : null,
      model: typeof record.model === 'string' ? record.model : model,
    },
  };
}
