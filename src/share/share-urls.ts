import fs from 'node:fs';
import path from 'node:path';
import { lockExclusively, writePrivateFileAtomic } from '../data-dir/index.js';

/**
 * Where each shared project's database is: its URL as the user gave it (a password included, when
 * the URL carries one), in `DATA_DIR/share.json`, 0600 like every file there — kept out of
 * memtrace.db so a copy or backup of the store never carries a credential. Only this file holds
 * the URL; everything shown or logged is `displayUrl`'s rebuild without the password.
 */
const SHARE_FILE = 'share.json';
const LOCK_FILE = 'share.lock';

interface ShareFile {
  version: 1;
  projects: Record<string, { url: string }>;
}

const fileOf = (dataDir: string) => path.join(dataDir, SHARE_FILE);

/** Project → URL. A missing or unreadable file is no project. */
export function readShareUrls(dataDir: string): Map<string, string> {
  try {
    const parsed = JSON.parse(fs.readFileSync(fileOf(dataDir), 'utf8')) as Partial<ShareFile>;
    const out = new Map<string, string>();
    for (const [project, entry] of Object.entries(parsed.projects ?? {})) if (entry && typeof entry.url === 'string') out.set(project, entry.url);
    return out;
  } catch {
    return new Map();
  }
}

/** Something that changes whenever the file is rewritten (a running worker re-reads it then). */
export function shareUrlsStamp(dataDir: string): string {
  try {
    // Asked every second: without the file (nothing shared) a thrown ENOENT, with its stack, cost more than the stat.
    const s = fs.statSync(fileOf(dataDir), { throwIfNoEntry: false });
    return s ? `${s.ino}:${s.size}:${s.mtimeMs}` : 'none';
  } catch {
    return 'none';
  }
}

/** Sets (or, with null, removes) a project's URL; read-modify-write under a lock, written atomically. */
export function setShareUrl(dataDir: string, project: string, url: string | null): void {
  const lock = lockExclusively(path.join(dataDir, LOCK_FILE), { busyTimeoutMs: 5_000 });
  if (lock === null) throw new Error(`another memtrace command is changing ${fileOf(dataDir)}; try again`);
  try {
    const projects = Object.fromEntries([...readShareUrls(dataDir)].map(([p, u]) => [p, { url: u }]));
    if (url === null) delete projects[project];
    else projects[project] = { url };
    const file: ShareFile = { version: 1, projects };
    writePrivateFileAtomic(fileOf(dataDir), `${JSON.stringify(file, null, 2)}\n`);
  } finally {
    lock.release();
  }
}
