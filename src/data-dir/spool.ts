import fs from 'node:fs';
import path from 'node:path';
import { redactValueInto } from '../redaction/index.js';
import { makePrivateDir, writePrivateFileAtomic } from './private-files.js';

/**
 * Hook events that could not reach the worker (not running, too slow, refused) are written here
 * and replayed by the worker, oldest first, when it starts and on every tick: nothing a hook saw
 * is lost. Kept to node:fs so the hook path stays cheap.
 *
 * An entry holds the host's own payload: the worker maps it exactly as if it had come live. A
 * payload the hook could not read as JSON is kept as text (bounded: head and tail) so that the
 * worker can count it and the user can look at it. Entries written by 0.2.0 (`path` and `body`
 * of an HTTP call) are still replayed. Every entry is redacted before it is written
 * (docs/secrets-and-retention.md): the spool is a file on disk like any other. Its redactions
 * are counted when the worker replays the entry through the same redaction.
 */
export interface SpooledHookEvent {
  v: 2;
  host: string;
  event: string;
  via: string;
  /**
   * Why it was spooled: the worker was not there, did not answer in time, or could not store it
   * (refused); or it found the store's write lock held by another process (busy).
   */
  failure: 'unreachable' | 'timeout' | 'refused' | 'busy' | 'unreadable';
  at: number;
  /** The payload, when it parsed as JSON. */
  payload?: unknown;
  /** Otherwise what was read of it, head and tail. */
  raw?: string;
  /** How many bytes the hook read (for an unreadable payload). */
  bytes?: number;
  /** A payload over the hook's input limit: its head and tail. */
  oversized?: { head: string; tail: string; totalBytes: number };
}

export interface SpooledCall {
  method: 'POST';
  path: string;
  body: Record<string, unknown>;
  hook_event: string;
  via: string;
  /** The agent host, when not Claude Code (older spool files have none). */
  host?: string;
  failure: 'unreachable' | 'timeout';
  at: number;
}

export type SpoolEntry = SpooledHookEvent | SpooledCall;

const SPOOL_DIR = 'spool';
/**
 * Where hook events are spooled. Apart from the 0.2.0 entries in SPOOL_DIR itself: a 0.2.0
 * worker still running after an upgrade removes entries it cannot read, and must not see these.
 */
const EVENTS_SPOOL_DIR = path.join(SPOOL_DIR, 'events');
/** Payloads that could never be read as an event, kept for the user to look at (bounded). */
const UNREADABLE_DIR = 'unreadable';
const UNREADABLE_KEEP_BYTES = 16 * 1024 * 1024;
/** Payloads kept as text are cut to this many characters (head and tail). */
export const MAX_RAW_SPOOL_CHARS = 1024 * 1024;

export function spoolHookEvent(dataDir: string, entry: SpooledHookEvent): string {
  return writeEntry(dataDir, entry.at, entry, EVENTS_SPOOL_DIR);
}

/** Writes a 0.2.0-shaped entry (tests of the upgrade path). */
export function spoolCall(dataDir: string, call: SpooledCall): string {
  return writeEntry(dataDir, call.at, call);
}

/** Keeps a payload nobody can read as an event, aside from the spool (the oldest go past the bound). */
export function keepUnreadable(dataDir: string, entry: SpooledHookEvent): void {
  const name = writeEntry(dataDir, entry.at, entry, path.join(SPOOL_DIR, UNREADABLE_DIR));
  trimUnreadable(dataDir, name);
}

/** Moves a spooled entry nobody can read aside. */
export function setAsideUnreadable(dataDir: string, name: string): void {
  const dir = path.join(dataDir, SPOOL_DIR, UNREADABLE_DIR);
  makePrivateDir(dir);
  const base = path.basename(name);
  fs.renameSync(path.join(dataDir, SPOOL_DIR, name), path.join(dir, base));
  trimUnreadable(dataDir, base);
}

function trimUnreadable(dataDir: string, newest: string): void {
  const dir = path.join(dataDir, SPOOL_DIR, UNREADABLE_DIR);
  const kept = fs
    .readdirSync(dir)
    .filter((n) => !n.startsWith('.'))
    .sort(bySpoolTime)
    .map((n) => ({ n, size: fs.statSync(path.join(dir, n)).size }));
  let total = kept.reduce((sum, k) => sum + k.size, 0);
  for (const k of kept) {
    if (total <= UNREADABLE_KEEP_BYTES || k.n === newest) break;
    fs.rmSync(path.join(dir, k.n), { force: true });
    total -= k.size;
  }
}

/** Entries one process spools within the same millisecond (the worker's, while the store is busy) keep their order by it. */
let written = 0;

function writeEntry(dataDir: string, at: number, entry: SpoolEntry, sub = SPOOL_DIR): string {
  const dir = path.join(dataDir, sub);
  // The time first (zero-padded) so that names sort in the order events were spooled.
  written += 1;
  const name = `${String(at).padStart(15, '0')}-${String(process.pid).padStart(7, '0')}-${String(written).padStart(9, '0')}-${Math.random().toString(36).slice(2, 10)}.json`;
  // A reader never sees half a file: the temp file's name starts with a dot, which listSpool skips.
  writePrivateFileAtomic(path.join(dir, name), JSON.stringify(redactValueInto(entry, {})));
  return name;
}

/** Spooled entries (names relative to the spool), oldest first; 0.2.0's and today's together. */
export function listSpool(dataDir: string): string[] {
  const list = (sub: string, prefix: string) => {
    try {
      return fs
        .readdirSync(path.join(dataDir, sub))
        .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
        .map((n) => `${prefix}${n}`);
    } catch {
      return [];
    }
  };
  return [...list(SPOOL_DIR, ''), ...list(EVENTS_SPOOL_DIR, 'events/')].sort(bySpoolTime);
}

/** Names start with the time (0.2.0's unpadded): compare the time first, then the name. */
function bySpoolTime(a: string, b: string): number {
  const time = (name: string) => {
    const base = name.slice(name.lastIndexOf('/') + 1);
    return Number(base.slice(0, base.indexOf('-')));
  };
  const ta = time(a);
  const tb = time(b);
  return ta !== tb ? ta - tb : a < b ? -1 : a > b ? 1 : 0;
}

export function readSpooled(dataDir: string, name: string): SpoolEntry | null {
  try {
    const value = JSON.parse(fs.readFileSync(path.join(dataDir, SPOOL_DIR, name), 'utf8')) as SpoolEntry;
    if (value && (value as SpooledHookEvent).v === 2 && typeof (value as SpooledHookEvent).host === 'string') return value;
    const call = value as SpooledCall;
    return call && typeof call.path === 'string' && call.body && typeof call.body === 'object' ? call : null;
  } catch {
    return null;
  }
}

export function removeSpooled(dataDir: string, name: string): void {
  fs.rmSync(path.join(dataDir, SPOOL_DIR, name), { force: true });
}

export function isSpooledHookEvent(entry: SpoolEntry): entry is SpooledHookEvent {
  return (entry as SpooledHookEvent).v === 2;
}

/**
 * Retention for the spool: what was kept aside as unreadable, and temp files a crash left, once
 * older than `cutoffMs`. Events still waiting to be replayed are not raw data that was processed:
 * they stay until the worker stores them. Returns how many files went.
 */
export function pruneSpool(dataDir: string, cutoffMs: number): number {
  let removed = 0;
  for (const sub of [path.join(SPOOL_DIR, UNREADABLE_DIR), SPOOL_DIR, EVENTS_SPOOL_DIR]) {
    let names: string[];
    try {
      names = fs.readdirSync(path.join(dataDir, sub));
    } catch {
      continue;
    }
    const strayOnly = sub !== path.join(SPOOL_DIR, UNREADABLE_DIR);
    for (const name of names) {
      if (strayOnly && !(name.startsWith('.') && name.endsWith('.tmp'))) continue;
      const at = Number(/^\.?0*(\d+)-/.exec(name)?.[1]);
      if (!Number.isFinite(at) || at >= cutoffMs) continue;
      fs.rmSync(path.join(dataDir, sub, name), { force: true });
      removed += 1;
    }
  }
  return removed;
}
