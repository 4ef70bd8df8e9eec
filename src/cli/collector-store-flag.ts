import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { UsageError, type CliIO } from './command.js';
import { loadWorkerConfig } from '../config.js';
import { describeStore, parseStoreSpec, type StoreSpec } from '../fleet/collector/index.js';

/** The data dir from the environment, for default paths (the collector needs no valid worker config). */
function collectorDataDir(io: CliIO): string {
  const loaded = loadWorkerConfig(io.env, os.homedir());
  return loaded.ok ? loaded.config.dataDir : path.join(os.homedir(), '.memtrace');
}

/** `--store sqlite:PATH|chdb:DIR|clickhouse:URL`, or `--db FILE` (= sqlite:FILE), else DATA_DIR/collector.db. */
export function storeFromFlags(io: CliIO, flags: { store?: string | undefined; db?: string | undefined }): StoreSpec {
  if (flags.store !== undefined && flags.db !== undefined)
    throw new UsageError('--store and --db both name the store; give one (--db FILE is --store sqlite:FILE)');
  if (flags.db !== undefined) return { kind: 'sqlite', path: flags.db };
  if (flags.store === undefined) return { kind: 'sqlite', path: path.join(collectorDataDir(io), 'collector.db') };
  const parsed = parseStoreSpec(flags.store);
  if (!parsed.ok) throw new UsageError(parsed.reason);
  return parsed.spec;
}

/** Where a ClickHouse store's accepted events wait by default: one directory per store under the data dir. */
export function defaultSpoolDir(io: CliIO, spec: StoreSpec): string {
  const slug = createHash('sha256').update(describeStore(spec)).digest('hex').slice(0, 12);
  return path.join(collectorDataDir(io), 'collector-spool', `${spec.kind}-${slug}`);
}

/** A store failure as one line (the error's own message for the kinds the store names; the code for a socket). */
export function storeFailureLine(error: unknown): string {
  if (error instanceof Error) return error.message.split('\n', 1)[0] ?? String(error);
  return String(error);
}
