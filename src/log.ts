import { redactTextInto, redactValueInto } from './redaction/index.js';

/** Local log: full detail, never sent anywhere — and never a secret (redacted before the write). */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export interface LogSink {
  write(line: string): void;
}

/** JSON lines; a logger must never throw into the caller. */
export function createLogger(sink: LogSink, options: { now?: () => number; minLevel?: LogLevel } = {}): Logger {
  const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
  const min = order[options.minLevel ?? 'info'];
  const now = options.now ?? Date.now;
  const emit = (level: LogLevel, message: string, fields?: LogFields): void => {
    if (order[level] < min) return;
    try {
      const scratch = {};
      const msg = redactTextInto(message, scratch);
      const clean = fields === undefined ? undefined : (redactValueInto(plain(fields), scratch) as LogFields);
      sink.write(`${JSON.stringify({ ts: new Date(now()).toISOString(), level, msg, ...clean })}\n`);
    } catch {
      // Logging is best effort: an unserialisable field must not break the worker.
      try {
        sink.write(`${JSON.stringify({ level, msg: redactTextInto(message, {}), note: 'fields not serialisable' })}\n`);
      } catch {
        /* give up silently */
      }
    }
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}

/**
 * Fields as JSON would write them (errors as their text, bigints refused as before), so the
 * redactor sees every string that reaches the file.
 */
function plain(fields: LogFields): unknown {
  return JSON.parse(JSON.stringify(fields, (_key, value: unknown) => (value instanceof Error ? (value.stack ?? value.message) : value))) as unknown;
}

/** For tests: collects records instead of writing them. */
export function createMemoryLogger(): Logger & { records: Array<{ level: LogLevel; message: string; fields?: LogFields }> } {
  const records: Array<{ level: LogLevel; message: string; fields?: LogFields }> = [];
  const push = (level: LogLevel) => (message: string, fields?: LogFields) => {
    records.push(fields === undefined ? { level, message } : { level, message, fields });
  };
  return { records, debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
