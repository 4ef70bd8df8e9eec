import fs from 'node:fs';
import path from 'node:path';
import { redactValueInto } from '../memory/redact.js';

/**
 * Hook calls that could not reach the worker (not running yet, or too slow) are written here
 * and replayed by the worker when it starts and on every tick: nothing a hook saw is lost.
 * Kept to node:fs so the hook path stays cheap. The body is redacted before it is written
 * (SPEC §2, principle 9): the spool is a file on disk like any other.
 */
export interface SpooledCall {
  method: 'POST';
  path: string;
  body: Record<string, unknown>;
  hook_event: string;
  via: string;
  failure: 'unreachable' | 'timeout';
  at: number;
}

export const SPOOL_DIR = 'spool';

export function spoolCall(dataDir: string, call: SpooledCall): string {
  const dir = path.join(dataDir, SPOOL_DIR);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const name = `${call.at}-${process.pid}-${Math.random().toString(36).slice(2, 10)}.json`;
  const temp = path.join(dir, `.${name}.tmp`);
  // Counts are not kept: the worker replays the spool through its API, whose redaction counts.
  fs.writeFileSync(temp, JSON.stringify({ ...call, body: redactValueInto(call.body, {}) }), { mode: 0o600 });
  // A reader never sees half a file: it only lists names that do not start with a dot.
  fs.renameSync(temp, path.join(dir, name));
  return name;
}

/** Spooled calls, oldest first (file names start with the time). */
export function listSpool(dataDir: string): string[] {
  try {
    return fs
      .readdirSync(path.join(dataDir, SPOOL_DIR))
      .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
      .sort();
  } catch {
    return [];
  }
}

export function readSpooled(dataDir: string, name: string): SpooledCall | null {
  try {
    const value = JSON.parse(fs.readFileSync(path.join(dataDir, SPOOL_DIR, name), 'utf8')) as SpooledCall;
    return value && typeof value.path === 'string' && value.body && typeof value.body === 'object' ? value : null;
  } catch {
    return null;
  }
}

export function removeSpooled(dataDir: string, name: string): void {
  fs.rmSync(path.join(dataDir, SPOOL_DIR, name), { force: true });
}

/** Removes spooled calls (and half-written ones) written before `cutoffMs`; returns how many. */
export function pruneSpool(dataDir: string, cutoffMs: number): number {
  let names: string[];
  try {
    names = fs.readdirSync(path.join(dataDir, SPOOL_DIR));
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const at = Number(/^\.?(\d+)-/.exec(name)?.[1]);
    if (!Number.isFinite(at) || at >= cutoffMs) continue;
    fs.rmSync(path.join(dataDir, SPOOL_DIR, name), { force: true });
    removed += 1;
  }
  return removed;
}
