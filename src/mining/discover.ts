import fs from 'node:fs/promises';
import path from 'node:path';
import type { TranscriptTarget } from './mine-file.js';
import { sessionIdOfListedFile } from './transcript-path.js';

const STAT_CONCURRENCY = 32;

export interface Discovery {
  targets: TranscriptTarget[];
  /** Folders that could not be listed, with the reason (a missing root is reported, not thrown). */
  problems: Array<{ path: string; error: string }>;
}

/**
 * Lists session transcripts under each folder: `<dir>/<session-id>.jsonl` and one level down
 * (`<dir>/<project>/<session-id>.jsonl`), so both the projects folder and one project's folder
 * work. Subagent transcripts (`<session-id>/subagents/…`) are not listed. One stat per file.
 */
export async function discoverTranscripts(dirs: readonly string[], extraFiles: ReadonlyArray<{ path: string; sessionId: string }> = []): Promise<Discovery> {
  const problems: Discovery['problems'] = [];
  const found = new Map<string, string>();
  for (const dir of dirs) {
    const entries = await listDir(dir, problems);
    const subdirs: string[] = [];
    for (const entry of entries) {
      if (entry.isFile()) {
        const id = sessionIdOfListedFile(entry.name);
        if (id) found.set(path.join(dir, entry.name), id);
      } else if (entry.isDirectory()) subdirs.push(path.join(dir, entry.name));
    }
    for (const sub of subdirs) {
      for (const entry of await listDir(sub, problems)) {
        if (!entry.isFile()) continue;
        const id = sessionIdOfListedFile(entry.name);
        if (id) found.set(path.join(sub, entry.name), id);
      }
    }
  }
  for (const extra of extraFiles) found.set(extra.path, extra.sessionId);
  const targets: TranscriptTarget[] = [];
  const all = [...found];
  for (let i = 0; i < all.length; i += STAT_CONCURRENCY) {
    const batch = await Promise.all(
      all.slice(i, i + STAT_CONCURRENCY).map(async ([file, sessionId]) => {
        try {
          const stat = await fs.stat(file);
          return stat.isFile() ? { path: file, sessionId, size: stat.size, mtimeMs: stat.mtimeMs } : null;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') problems.push({ path: file, error: (error as Error).message });
          return null;
        }
      }),
    );
    for (const t of batch) if (t) targets.push(t);
  }
  return { targets, problems };
}

async function listDir(dir: string, problems: Discovery['problems']) {
  try {
    return await fs.readdir(dir, { withFileTypes: true });
  } catch (error) {
    problems.push({ path: dir, error: (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : (error as Error).message });
    return [];
  }
}
