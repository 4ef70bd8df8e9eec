import fs from 'node:fs/promises';
import path from 'node:path';
import type { Discovery } from '../discover.js';
import type { TranscriptTarget } from '../transcript-target.js';
import { codexSessionIdOfPath, copilotSessionIdOfPath, piSessionIdOfPath, type TranscriptHost } from './host-transcripts.js';
import { discoverOpenCodeSessions } from './opencode-store.js';

/** How deep a Codex sessions folder nests its rollouts (YYYY/MM/DD), plus one for a parent folder given instead. */
const CODEX_DEPTH = 4;
/** A Gemini chat file's first line (its metadata) is small; a file whose first line is not is skipped. */
const FIRST_LINE_BYTES = 64 * 1024;

/**
 * Lists Gemini CLI chat files (`<root>/<project>/chats/*.jsonl`; a project folder or a chats
 * folder works too), Codex rollouts (`<root>/YYYY/MM/DD/rollout-*.jsonl`), Copilot CLI session
 * logs (`<root>/<session id>/events.jsonl`; one session's folder works too), pi session files
 * (`<root>/--<cwd>--/<time>_<uuid>.jsonl`; one cwd's folder works too), one stat per file, or the
 * sessions of OpenCode's stores (`<root>/opencode*.db`, or one store file).
 * A Gemini file's session id is read from its first line (the name holds only 8 characters of it);
 * given `known` (the watcher's, kept across its passes), a file's id is read once, not every pass.
 */
export async function discoverHostTranscripts(host: TranscriptHost, root: string, known?: Map<string, string>): Promise<Discovery> {
  if (host === 'opencode') return discoverOpenCodeSessions(root);
  const problems: Discovery['problems'] = [];
  const found: Array<{ path: string; sessionId: string | null }> = [];
  if (host === 'codex') await walkCodex(root, CODEX_DEPTH, found, problems, true);
  else if (host === 'copilot') await listCopilot(root, found, problems);
  else if (host === 'pi') {
    for (const entry of await listDir(root, problems, true)) {
      const full = path.join(root, entry.name);
      const files = entry.isDirectory() ? (await listDir(full, problems, false)).filter((e) => e.isFile()).map((e) => path.join(full, e.name)) : [full];
      for (const file of files) {
        const sessionId = piSessionIdOfPath(file);
        if (sessionId) found.push({ path: file, sessionId });
      }
    }
  } else {
    const rootEntries = await listDir(root, problems, true);
    const names = new Set(rootEntries.map((e) => e.name));
    const chatDirs =
      path.basename(root) === 'chats'
        ? [root]
        : names.has('chats')
          ? [path.join(root, 'chats')]
          : rootEntries.filter((e) => e.isDirectory()).map((e) => path.join(root, e.name, 'chats'));
    for (const dir of chatDirs) {
      for (const entry of await listDir(dir, problems, false)) {
        if (entry.isFile() && entry.name.endsWith('.jsonl')) found.push({ path: path.join(dir, entry.name), sessionId: null });
      }
    }
  }
  if (known) forgetGone(known, root, found);
  const targets: TranscriptTarget[] = [];
  for (const file of found) {
    try {
      const stat = await fs.stat(file.path);
      const sessionId = file.sessionId ?? known?.get(file.path) ?? (await geminiSessionId(file.path));
      if (!stat.isFile() || !sessionId) continue;
      if (file.sessionId === null) known?.set(file.path, sessionId);
      targets.push({ path: file.path, sessionId, size: stat.size, mtimeMs: stat.mtimeMs, host });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') problems.push({ path: file.path, error: (error as Error).message });
    }
  }
  return { targets, problems };
}

/** A file under `root` no longer listed (deleted) leaves `known`, so a long-running watcher's map stays the size of the folder. */
function forgetGone(known: Map<string, string>, root: string, found: ReadonlyArray<{ path: string }>): void {
  const listed = new Set(found.map((f) => f.path));
  const under = root.endsWith(path.sep) ? root : `${root}${path.sep}`;
  for (const file of known.keys()) if (file.startsWith(under) && !listed.has(file)) known.delete(file);
}

async function listCopilot(root: string, found: Array<{ path: string; sessionId: string | null }>, problems: Discovery['problems']): Promise<void> {
  const own = copilotSessionIdOfPath(path.join(root, 'events.jsonl'));
  if (own) {
    found.push({ path: path.join(root, 'events.jsonl'), sessionId: own });
    return;
  }
  for (const entry of await listDir(root, problems, true)) {
    const file = path.join(root, entry.name, 'events.jsonl');
    const sessionId = entry.isDirectory() ? copilotSessionIdOfPath(file) : null;
    // A session folder without a log yet (Copilot writes it in batches) is skipped by the stat below.
    if (sessionId) found.push({ path: file, sessionId });
  }
}

async function walkCodex(
  dir: string,
  depth: number,
  found: Array<{ path: string; sessionId: string | null }>,
  problems: Discovery['problems'],
  isRoot: boolean,
): Promise<void> {
  for (const entry of await listDir(dir, problems, isRoot)) {
    const full = path.join(dir, entry.name);
    if (entry.isFile()) {
      const sessionId = codexSessionIdOfPath(full);
      if (sessionId) found.push({ path: full, sessionId });
    } else if (entry.isDirectory() && depth > 0) await walkCodex(full, depth - 1, found, problems, false);
  }
}

async function geminiSessionId(file: string): Promise<string | null> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(FIRST_LINE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    const end = text.indexOf('\n');
    const meta = JSON.parse(end === -1 ? text : text.slice(0, end)) as { sessionId?: unknown };
    return typeof meta.sessionId === 'string' && /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(meta.sessionId) ? meta.sessionId : null;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

/** A missing root is a problem to report; a missing sub-folder (a project without chats) is not. */
async function listDir(dir: string, problems: Discovery['problems'], isRoot: boolean) {
  try {
    return await fs.readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (isRoot || code !== 'ENOENT') problems.push({ path: dir, error: code === 'ENOENT' ? 'no such directory' : (error as Error).message });
    return [];
  }
}
