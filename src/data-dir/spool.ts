import fs from 'node:fs';
import path from 'node:path';

/**
 * Hook calls that could not reach the worker (not running yet, or too slow) are written here
 * and replayed by the worker when it starts and on every tick: nothing a hook saw is lost.
 * Kept to node:fs so the hook path stays cheap.
 */
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

export const SPOOL_DIR = 'spool';

export function spoolCall(dataDir: string, call: SpooledCall): string {
  const dir = path.join(dataDir, SPOOL_DIR);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const name = `${call.at}-${process.pid}-${Math.random().toString(36).slice(2, 10)}.json`;
  const temp = path.join(dir, `.${name}.tmp`);
  fs.writeFileSync(temp, JSON.stringify(call), { mode: 0o600 });
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
