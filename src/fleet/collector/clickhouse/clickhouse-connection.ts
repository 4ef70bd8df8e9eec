/**
 * What the ClickHouse store needs from an engine: statements, rows back as JSON, and a
 * JSONEachRow insert. Two implementations: a server through `@clickhouse/client`
 * (http-connection.ts) and the embedded engine of the `chdb` package (chdb-connection.ts).
 */
export interface ClickHouseConnection {
  /** Names the store in messages (a URL without its password, or a directory). */
  where: string;
  /** Runs a statement that returns nothing. */
  command(sql: string, options?: ExclusiveOption): Promise<void>;
  /** A SELECT's rows, as JSONEachRow objects (64-bit integers as numbers, inf/nan as null). */
  rows<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  /** Inserts JSONEachRow text into a table (columns by name). */
  insertRows(table: string, ndjson: string, options?: ExclusiveOption): Promise<void>;
  close(): Promise<void>;
}

export interface ExclusiveOption {
  /**
   * Runs while no other collector's exclusive statement runs on this store: on a server, in one
   * session that ClickHouse runs one query at a time; in one process, one after the other. A
   * guarded insert is one statement, so its check and its write are never interleaved.
   */
  exclusive?: boolean;
}

export type ClickHouseFailure = 'unreachable' | 'auth' | 'no_database' | 'busy' | 'not_installed' | 'store_in_use' | 'query';

/** A failure of the store with what kind it is, so the CLI can say it in one line and the flusher can decide to retry. */
export class ClickHouseStoreError extends Error {
  constructor(
    readonly kind: ClickHouseFailure,
    message: string,
    readonly code: number | null = null,
  ) {
    super(message);
    this.name = 'ClickHouseStoreError';
  }
}

/** ClickHouse error codes the store tells apart (ErrorCodes.cpp). */
const UNKNOWN_DATABASE = 81;
const AUTH_CODES = new Set([192 /* UNKNOWN_USER */, 193 /* WRONG_PASSWORD */, 194 /* REQUIRED_PASSWORD */, 516 /* AUTHENTICATION_FAILED */]);
const SESSION_IS_LOCKED = 373;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'UND_ERR_SOCKET']);

/** Classifies an engine or transport error by its ClickHouse code or socket error code, never by its text alone. */
export function classifyClickHouseError(error: unknown, where: string): ClickHouseStoreError {
  if (error instanceof ClickHouseStoreError) return error;
  const e = error as { code?: unknown; clickhouseCode?: unknown; message?: unknown; cause?: unknown };
  const message = typeof e?.message === 'string' ? firstLine(e.message) : String(error);
  const chCode = numericCode(e?.clickhouseCode) ?? numericCode(e?.code) ?? codeInMessage(message);
  const socketCode =
    typeof e?.code === 'string' ? e.code : typeof (e?.cause as { code?: unknown })?.code === 'string' ? (e.cause as { code: string }).code : null;
  if (chCode !== null && AUTH_CODES.has(chCode)) return new ClickHouseStoreError('auth', `${where} refused the credentials: ${message}`, chCode);
  if (chCode === UNKNOWN_DATABASE) return new ClickHouseStoreError('no_database', `${where} has no such database: ${message}`, chCode);
  if (chCode === SESSION_IS_LOCKED) return new ClickHouseStoreError('busy', `${where} is busy with another collector's insert`, chCode);
  if (socketCode !== null && NETWORK_CODES.has(socketCode)) return new ClickHouseStoreError('unreachable', `${where} does not answer (${socketCode})`);
  if (/timeout/i.test(socketCode ?? '') || /\btimed? ?out\b/i.test(message))
    return new ClickHouseStoreError('unreachable', `${where} does not answer (timeout)`);
  return new ClickHouseStoreError('query', `${where}: ${message}`, chCode);
}

function numericCode(v: unknown): number | null {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  return null;
}

function codeInMessage(message: string): number | null {
  const m = /\bCode: (\d+)\b/.exec(message);
  return m ? Number(m[1]) : null;
}

function firstLine(s: string): string {
  const line = s.split('\n', 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** JSONEachRow text → rows. */
export function parseJsonRows<T>(text: string): T[] {
  const out: T[] = [];
  for (const line of text.split('\n')) if (line !== '') out.push(JSON.parse(line) as T);
  return out;
}
