/**
 * Worker configuration from the environment (docs/interfaces.md#configuration). Pure: takes the env and the home
 * directory, returns values or errors that name the variable, and where each value came from.
 */
export interface WorkerConfig {
  dataDir: string;
  dbFile: string;
  port: number;
  /** The port is only the default (no MEMTRACE_PORT, no --port): when taken, the HTTP API takes another. */
  portIsDefault: boolean;
  /** One observer call's limit; past it the message is released (MEMTRACE_PROVIDER_TIMEOUT_MS). */
  providerTimeoutMs: number;
  /** Raw payloads are kept until processed plus this many days (MEMTRACE_RAW_RETENTION_DAYS). */
  rawRetentionDays: number;
  /** The store's size budget in MiB; past it the oldest raw data goes first (MEMTRACE_MAX_DB_MB). */
  maxDbMb: number;
  /** Observer input + output tokens per UTC day, never exceeded; 0 observes nothing (MEMTRACE_OBSERVER_BUDGET_TOKENS). */
  observerBudgetTokens: number;
}

export const DEFAULT_PORT = 37877;
export const DEFAULT_PROVIDER_TIMEOUT_MS = 60_000;
const DEFAULT_RAW_RETENTION_DAYS = 30;
const DEFAULT_MAX_DB_MB = 2048;
/** Why this much: docs/observer.md#budget (a heavy day of batched observing, with room to spare). */
const DEFAULT_OBSERVER_BUDGET_TOKENS = 1_000_000;
/** The largest single call's bound fits below this, so a non-zero budget always admits a call on a fresh day. */
const MIN_OBSERVER_BUDGET_TOKENS = 200_000;

export type ConfigResult = { ok: true; config: WorkerConfig } | { ok: false; errors: string[] };

/** MEMTRACE_DATA_DIR (`~` expanded), else `~/.memtrace`. */
export function dataDirFromEnv(env: Record<string, string | undefined>, homeDir: string): string {
  const raw = env.MEMTRACE_DATA_DIR;
  return raw !== undefined && raw !== '' ? expandHome(raw, homeDir) : joinPath(homeDir, '.memtrace');
}

export function loadWorkerConfig(env: Record<string, string | undefined>, homeDir: string, overrides: { port?: number; dataDir?: string } = {}): ConfigResult {
  const errors: string[] = [];
  const dataDir = dataDirFromEnv(overrides.dataDir === undefined ? env : { ...env, MEMTRACE_DATA_DIR: overrides.dataDir }, homeDir);

  let port = DEFAULT_PORT;
  if (overrides.port !== undefined) port = overrides.port;
  else if (env.MEMTRACE_PORT !== undefined && env.MEMTRACE_PORT !== '') {
    const parsed = parsePort(env.MEMTRACE_PORT);
    if (parsed === null) errors.push(`MEMTRACE_PORT=${env.MEMTRACE_PORT} is not a port number (0-65535; 0 picks a free port)`);
    else port = parsed;
  }
  const timeout = parseProviderTimeout(env.MEMTRACE_PROVIDER_TIMEOUT_MS);
  if (typeof timeout === 'string') errors.push(timeout);
  const retentionDays = parseWholeNumber('MEMTRACE_RAW_RETENTION_DAYS', env.MEMTRACE_RAW_RETENTION_DAYS, 0, 36_500, 'days');
  if (typeof retentionDays === 'string') errors.push(retentionDays);
  const maxDbMb = parseWholeNumber('MEMTRACE_MAX_DB_MB', env.MEMTRACE_MAX_DB_MB, 1, 16_777_216, 'MiB');
  if (typeof maxDbMb === 'string') errors.push(maxDbMb);
  const budget = parseObserverBudget(env.MEMTRACE_OBSERVER_BUDGET_TOKENS);
  if (typeof budget === 'string') errors.push(budget);
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    config: {
      dataDir,
      dbFile: joinPath(dataDir, 'memtrace.db'),
      port,
      portIsDefault: overrides.port === undefined && (env.MEMTRACE_PORT === undefined || env.MEMTRACE_PORT === ''),
      providerTimeoutMs: typeof timeout === 'number' ? timeout : DEFAULT_PROVIDER_TIMEOUT_MS,
      rawRetentionDays: typeof retentionDays === 'number' ? retentionDays : DEFAULT_RAW_RETENTION_DAYS,
      maxDbMb: typeof maxDbMb === 'number' ? maxDbMb : DEFAULT_MAX_DB_MB,
      observerBudgetTokens: typeof budget === 'number' ? budget : DEFAULT_OBSERVER_BUDGET_TOKENS,
    },
  };
}

/** MEMTRACE_PROVIDER_TIMEOUT_MS: 1 s to 1 h; the number, or the error naming the variable. */
export function parseProviderTimeout(raw: string | undefined): number | string | null {
  if (raw === undefined || raw.trim() === '') return null;
  const value = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || value < 1_000 || value > 3_600_000)
    return `MEMTRACE_PROVIDER_TIMEOUT_MS=${raw} must be a whole number of milliseconds between 1000 and 3600000`;
  return value;
}

/** MEMTRACE_OBSERVER_BUDGET_TOKENS: 0 (observe nothing), or at least the largest call's bound. */
function parseObserverBudget(raw: string | undefined): number | string | null {
  const name = 'MEMTRACE_OBSERVER_BUDGET_TOKENS';
  const value = parseWholeNumber(name, raw, 0, 1_000_000_000_000, 'tokens');
  if (typeof value === 'number' && value > 0 && value < MIN_OBSERVER_BUDGET_TOKENS)
    return `${name}=${raw} must be 0 (observe nothing) or at least ${MIN_OBSERVER_BUDGET_TOKENS} tokens (the largest single observer call)`;
  return value;
}

/** A whole number in [min, max] from an env variable; null when unset, else the value or the error naming it. */
function parseWholeNumber(name: string, raw: string | undefined, min: number, max: number, unit: string): number | string | null {
  if (raw === undefined || raw.trim() === '') return null;
  const value = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max) return `${name}=${raw} must be a whole number of ${unit} between ${min} and ${max}`;
  return value;
}

function parsePort(raw: string): number | null {
  if (!/^\d{1,5}$/.test(raw.trim())) return null;
  const value = Number(raw.trim());
  return value <= 65535 ? value : null;
}

function expandHome(p: string, homeDir: string): string {
  if (p === '~') return homeDir;
  if (p.startsWith('~/')) return joinPath(homeDir, p.slice(2));
  return p;
}

/** Path joining without node:path keeps this module pure; inputs are POSIX-style or absolute. */
function joinPath(a: string, b: string): string {
  return a.endsWith('/') ? `${a}${b}` : `${a}/${b}`;
}
