import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { TranscriptTarget } from './mine-file.js';
import { subagentIdOfListedFile, SUBAGENTS_DIR } from './subagent-transcript.js';
import { sessionIdOfListedDir, sessionIdOfListedFile } from './transcript-path.js';
import { parseOpenCodeSessionRef } from './hosts/host-transcripts.js';
import { discoverOpenCodeSessions } from './hosts/opencode-store.js';

const STAT_CONCURRENCY = 32;

export interface Discovery {
  targets: TranscriptTarget[];
  /** Folders that could not be listed, with the reason (a missing root is reported, not thrown). */
  problems: Array<{ path: string; error: string }>;
}

/**
 * Lists session transcripts under each folder: `<dir>/<session-id>.jsonl` and one level down
 * (`<dir>/<project>/<session-id>.jsonl`), so both the projects folder and one project's folder
 * work, and the subagent transcripts beside them (`<session-id>/subagents/agent-<id>.jsonl`). One
 * stat per file; a session's folder is listed only where one exists. A transcript the hooks
 * reported brings its subagents' transcripts too.
 */
export async function discoverTranscripts(dirs: readonly string[], extraFiles: ReadonlyArray<{ path: string; sessionId: string }> = []): Promise<Discovery> {
  const problems: Discovery['problems'] = [];
  const found = new Map<string, { sessionId: string; agentId?: string }>();
  /** Files of one folder; its subfolders named by a session id are that session's (subagents). */
  const listFolder = async (dir: string, subdirs: string[] | null) => {
    for (const entry of await listDir(dir, problems)) {
      if (entry.isFile()) {
        const id = sessionIdOfListedFile(entry.name);
        if (id) found.set(path.join(dir, entry.name), { sessionId: id });
      } else if (entry.isDirectory()) {
        const session = sessionIdOfListedDir(entry.name);
        if (session) await listSubagents(path.join(dir, entry.name, SUBAGENTS_DIR), session);
        else subdirs?.push(path.join(dir, entry.name));
      }
    }
  };
  const listSubagents = async (dir: string, sessionId: string) => {
    let entries: Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return; // a session folder without subagents (tool results only)
    }
    for (const entry of entries) {
      const agentId = entry.isFile() ? subagentIdOfListedFile(entry.name) : null;
      if (agentId) found.set(path.join(dir, entry.name), { sessionId, agentId });
    }
  };
  for (const dir of dirs) {
    const subdirs: string[] = [];
    await listFolder(dir, subdirs);
    for (const sub of subdirs) await listFolder(sub, null);
  }
  const openCode: Array<{ store: string; sessionId: string }> = [];
  for (const extra of extraFiles) {
    // An OpenCode session is a query of its store, not a file of its own.
    const ref = parseOpenCodeSessionRef(extra.path);
    if (ref) {
      openCode.push(ref);
      continue;
    }
    found.set(extra.path, { sessionId: extra.sessionId });
    // A reported transcript's subagents sit in the folder named after it.
    if (extra.path.endsWith('.jsonl')) await listSubagents(path.join(extra.path.slice(0, -'.jsonl'.length), SUBAGENTS_DIR), extra.sessionId);
  }
  const targets: TranscriptTarget[] = [];
  if (openCode.length > 0) {
    const sessions = await discoverOpenCodeSessions('', openCode);
    targets.push(...sessions.targets);
    problems.push(...sessions.problems);
  }
  const all = [...found];
  for (let i = 0; i < all.length; i += STAT_CONCURRENCY) {
    const batch = await Promise.all(
      all.slice(i, i + STAT_CONCURRENCY).map(async ([file, { sessionId, agentId }]): Promise<TranscriptTarget | null> => {
        try {
          const stat = await fs.stat(file);
          if (!stat.isFile()) return null;
          return { path: file, sessionId, size: stat.size, mtimeMs: stat.mtimeMs, ...(agentId ? { agent: { id: agentId } } : {}) };
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') problems.push({ path: file, error: (error as Error).message });
          return null;
        }
      }),
    );
    for (const t of batch) if (t) targets.push(t);
  }
  // A session's own transcript first: the session it creates takes that file's first prompt, not a subagent's task.
  targets.sort((a, b) => Number(a.agent !== undefined) - Number(b.agent !== undefined));
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
