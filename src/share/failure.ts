import type { ShareFailureClass } from '../vocabulary/share-failure.js';
import { withoutPasswords } from './connection-url.js';

/**
 * Why a shared database could not be used, as a closed class (counted in share_rollup, never its
 * text) and one line a person can act on (share list, worker status). Classified from the error's
 * code — a Node socket code or the server's SQLSTATE — never from its wording, except for the few
 * client-side conditions node-postgres reports by message alone (its timeouts, a server without TLS).
 */

export interface ShareFailure {
  class: ShareFailureClass;
  /** One line, without any password. */
  message: string;
}

/** The project's connection cannot even be tried: its URL is missing or unreadable. */
export class ShareConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShareConfigError';
  }
}

/** memtrace's tables in the database are not what this version can use (newer, or not memtrace's). */
export class RemoteSchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RemoteSchemaError';
  }
}

const SOCKET: Record<string, ShareFailureClass> = {
  ECONNREFUSED: 'refused',
  ECONNRESET: 'refused',
  EHOSTUNREACH: 'refused',
  ENETUNREACH: 'refused',
  EPIPE: 'refused',
  ENOENT: 'refused', // a socket file that is not there
  ETIMEDOUT: 'timeout',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
};

const HINT: Record<ShareFailureClass, string> = {
  config: '',
  refused: 'is the server running and reachable?',
  timeout: 'the server did not answer in time',
  dns: 'the host name does not resolve',
  auth: 'check the role and its password (URL, PGPASSWORD or ~/.pgpass)',
  tls: 'check sslmode and the certificates',
  no_database: 'create the database, or fix its name in the URL',
  permission: 'the role lacks a privilege memtrace needs',
  schema: '',
  server: 'the server refused the request',
  other: '',
};

function classOf(error: { code?: unknown; message?: unknown; name?: unknown }): ShareFailureClass {
  const code = typeof error.code === 'string' ? error.code : '';
  const message = typeof error.message === 'string' ? error.message : '';
  if (error instanceof RemoteSchemaError) return 'schema';
  if (error instanceof ShareConfigError) return 'config';
  if (SOCKET[code]) return SOCKET[code]!;
  if (/^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|UNABLE_TO_|SELF_SIGNED|HOSTNAME_MISMATCH|ERR_OSSL)/.test(code)) return 'tls';
  if (code === '28P01' || code === '28000') return 'auth';
  if (code === '3D000') return 'no_database';
  if (code === '42501') return 'permission';
  if (code === '57014' || code === '55P03' || code === '25P03') return 'timeout';
  if (/^(08|53|57|58|XX)/.test(code)) return 'server';
  // node-postgres names these only in its messages.
  if (/timeout expired|connection timeout|query read timeout|timed out/i.test(message)) return 'timeout';
  if (/does not support SSL|SSL/i.test(message)) return 'tls';
  if (/Connection terminated|ended unexpectedly|connection closed/i.test(message)) return 'refused';
  if (code.length === 5) return 'server';
  return 'other';
}

export function classifyShareFailure(error: unknown): ShareFailure {
  const e = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as { code?: unknown; message?: unknown };
  const cls = classOf(e);
  const raw = (typeof e.message === 'string' && e.message.trim() !== '' ? e.message : String(e.code ?? 'unknown error')).split('\n')[0]!.trim();
  const hint = HINT[cls];
  const message = withoutPasswords(hint && !raw.includes(hint) ? `${raw} — ${hint}` : raw).slice(0, 300);
  return { class: cls, message };
}
