import fs from 'node:fs';
import path from 'node:path';
import { makePrivateDir, writePrivateFileAtomic } from '../../data-dir/private-files.js';
import { lockExclusively } from '../../data-dir/process-lock.js';
import type { CollectedEvent } from './collected-event.js';

/**
 * Events a collector has accepted but its store does not hold yet, one file per request, written
 * and synced before the reply (writePrivateFileAtomic: a file is whole or absent). The flusher takes
 * the oldest files, inserts their events and removes the files; a crash between the two only
 * re-inserts, which the store's uuid guard ignores. One collector per spool directory: a lock
 * the OS releases when the process dies (SQLite's exclusive lock, as the worker's).
 */
export interface CollectorSpool {
  dir: string;
  append(events: readonly CollectedEvent[]): void;
  /** The oldest files, up to `maxEvents` events (at least one file). */
  take(maxEvents: number): { files: string[]; events: CollectedEvent[] };
  remove(files: readonly string[]): void;
  /** Events waiting, counted from what was appended and taken (files of an earlier run included at open). */
  pendingEvents(): number;
  close(): void;
}

export class SpoolInUseError extends Error {
  constructor(readonly dir: string) {
    super(`another collector is using the spool at ${dir}`);
    this.name = 'SpoolInUseError';
  }
}

const SUFFIX = '.jsonl';
const LOCK = 'spool.lock';

export function openCollectorSpool(dir: string): CollectorSpool {
  makePrivateDir(dir);
  const lock = lockExclusively(path.join(dir, LOCK));
  if (lock === null) throw new SpoolInUseError(dir);
  // Half-written files of a crashed run (temporary, dot-named) were never acknowledged: their senders still hold them.
  for (const name of fs.readdirSync(dir)) if (name.startsWith('.')) fs.rmSync(path.join(dir, name), { force: true });
  // Every spool file and its event count, oldest first: names sort in arrival order, and this process is the only writer.
  const counts = new Map<string, number>();
  let pending = 0;
  const existing = fs
    .readdirSync(dir)
    .filter((name) => name.endsWith(SUFFIX))
    .sort();
  for (const name of existing) {
    const n = readFile(path.join(dir, name)).length;
    counts.set(name, n);
    pending += n;
  }
  let seq = 0;
  return {
    dir,
    append(events) {
      if (events.length === 0) return;
      seq += 1;
      // Time first, so names sort in arrival order across runs; the pid keeps two runs' names apart.
      const name = `${String(Date.now()).padStart(15, '0')}-${process.pid}-${String(seq).padStart(9, '0')}${SUFFIX}`;
      writePrivateFileAtomic(path.join(dir, name), `${events.map((e) => JSON.stringify(e)).join('\n')}\n`);
      counts.set(name, events.length);
      pending += events.length;
    },
    take(maxEvents) {
      const taken: string[] = [];
      const events: CollectedEvent[] = [];
      for (const name of counts.keys()) {
        if (taken.length > 0 && events.length + (counts.get(name) ?? 0) > maxEvents) break;
        const read = readFile(path.join(dir, name));
        counts.set(name, read.length);
        taken.push(name);
        events.push(...read);
      }
      return { files: taken, events };
    },
    remove(names) {
      for (const name of names) {
        fs.rmSync(path.join(dir, name), { force: true });
        pending -= counts.get(name) ?? 0;
        counts.delete(name);
      }
    },
    pendingEvents: () => pending,
    close() {
      lock.release();
    },
  };
}

/** A spool file's events; a line that does not parse (a disk fault) is skipped rather than blocking every later file. */
function readFile(file: string): CollectedEvent[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out: CollectedEvent[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      out.push(JSON.parse(line) as CollectedEvent);
    } catch {
      /* skipped: see above */
    }
  }
  return out;
}
