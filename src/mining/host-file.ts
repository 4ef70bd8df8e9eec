import fs from 'node:fs/promises';
import path from 'node:path';
import type { TranscriptFileState } from '../store/index.js';
import { readChatLines } from '../hosts/gemini-cli/chat-records.js';
import { parseRolloutLine, type RolloutLine } from '../hosts/codex/rollout-lines.js';
import { guard, MiningAttemptError } from './attempt-error.js';
import { openNodeFile } from './file-reader.js';
import { readChunks } from './read-chunks.js';
import { readCodexRollout } from './hosts/codex-rollout.js';
import { readGeminiChat } from './hosts/gemini-chat.js';
import { readCopilotTranscript } from './hosts/copilot-events.js';
import { readEventsLog } from '../hosts/copilot/events-log.js';
import { parseOpenCodeSessionRef, type TranscriptHost } from './hosts/host-transcripts.js';
import { minedEventOf, type HostTranscript } from './hosts/mined-call.js';
import { readOpenCodeSession } from './hosts/opencode-session.js';
import { readOpenCodeStoreSession } from './hosts/opencode-store.js';
import { readPiSession } from './hosts/pi-session.js';
import { parsePiLine, type PiEntry } from '../hosts/pi/session-entries.js';
import { createLineSplitter } from './line-splitter.js';
import type { MineFileConfig, MineFileDeps, MineFileOptions } from './mine-file-deps.js';
import { emptyCounts, emptyReport, type FileReport } from './mining-report.js';
import type { MinedEvent } from './segment-miner.js';
import type { TranscriptTarget } from './transcript-target.js';

/**
 * Mines one Gemini CLI chat file, Codex rollout, Copilot CLI session log, pi session file or
 * OpenCode session (a query of its store): the edge around the pure readers in mining/hosts/.
 * These transcripts are one segment (no compaction boundary to track), so a changed one is read
 * whole — a Gemini record may be rewritten further down, an OpenCode part goes from running to
 * completed — and the calls already queued (by the hooks or an earlier pass) are recognised by id
 * and not queued again. A call the hooks queued under another name (Copilot's provisional id) is
 * then named by the transcript's id too, so later passes and `memtrace show` know it by its own
 * id. Lines are read in bounded chunks; a line over the cap is skipped and counted, as for Claude
 * Code.
 */
export async function mineHostFile(
  config: MineFileConfig,
  deps: MineFileDeps,
  target: TranscriptTarget,
  host: TranscriptHost,
  options: MineFileOptions,
): Promise<FileReport> {
  const startedMs = deps.now();
  const counts = emptyCounts();
  const progress = { eventsQueued: 0, eventsDuplicate: 0, bytesRead: 0 };
  const report = (extra: Partial<FileReport>): FileReport => ({ ...emptyReport(target, 'mined'), ...progress, counts, ...extra });
  let reader: Awaited<ReturnType<typeof openNodeFile>> | null = null;
  try {
    if (guard(() => deps.store.sessionFailing(target.sessionId))) {
      throw new MiningAttemptError('provider_failing', 'the session’s observer calls are failing at the provider; mining waits instead of adding to them');
    }
    let transcript: HostTranscript;
    let completedTo: number;
    if (host === 'opencode') {
      const ref = parseOpenCodeSessionRef(target.path);
      if (!ref) throw new MiningAttemptError('read', 'not an OpenCode session (<store>#<session id>)');
      let read: ReturnType<typeof readOpenCodeStoreSession>;
      try {
        read = readOpenCodeStoreSession(ref.store, ref.sessionId);
      } catch (error) {
        if (!(await exists(ref.store))) return report({ outcome: 'gone' });
        throw new MiningAttemptError('read', `cannot read OpenCode's store: ${(error as Error).message}`);
      }
      if (!read) return report({ outcome: 'gone' });
      transcript = readOpenCodeSession(read.session, read.parts);
      counts.linesParsed = read.parts.length;
      completedTo = target.size;
    } else {
      try {
        reader = await (deps.openFile ?? openNodeFile)(target.path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return report({ outcome: 'gone' });
        throw new MiningAttemptError('read', `cannot open: ${(error as Error).message}`);
      }
      const texts: string[] = [];
      const rollout: RolloutLine[] = [];
      const entries: PiEntry[] = [];
      const splitter = createLineSplitter(0, config.maxLineBytes, {
        line: (bytes) => {
          const text = bytes.toString('utf8');
          if (text.trim() === '') return;
          if (host === 'gemini-cli' || host === 'copilot') texts.push(text);
          else {
            const parsed = host === 'pi' ? parsePiLine(text) : parseRolloutLine(text);
            if (parsed === null) counts.corruptLines += 1;
            else if (host === 'pi') entries.push(parsed as PiEntry);
            else rollout.push(parsed as RolloutLine);
          }
        },
        oversized: () => {
          counts.oversizedLines += 1;
        },
      });
      const read = await readChunks(reader, 0, config.chunkBytes, options.signal, (bytes) => {
        splitter.push(bytes);
        progress.bytesRead += bytes.length;
        options.onBytes?.(bytes.length);
      });
      if (read === 'aborted') return report({ outcome: 'aborted' });
      completedTo = splitter.completedTo();
      counts.linesParsed = texts.length + rollout.length + entries.length;
      transcript =
        host === 'gemini-cli'
          ? readGeminiChat(readChatLines(texts), target.sessionId, await geminiProjectRoot(target.path))
          : host === 'copilot'
            ? readCopilotTranscript(readEventsLog(texts), target.sessionId)
            : host === 'pi'
              ? readPiSession(entries, target.sessionId)
              : readCodexRollout(rollout, target.sessionId);
    }

    const events: MinedEvent[] = [];
    for (const call of transcript.calls) {
      const queuedAs = [call.toolUseId, ...call.alsoKnownAs].find((id) => guard(() => deps.store.alreadyQueued(target.sessionId, id)));
      if (queuedAs !== undefined) {
        if (queuedAs !== call.toolUseId && host === 'copilot') guard(() => deps.store.alsoNamed(target.sessionId, queuedAs, call.toolUseId, deps.now()));
        counts.alreadyQueued += 1;
        continue;
      }
      const mined = minedEventOf(host, call, { transcriptPath: target.path, cwd: transcript.cwd });
      if (mined.shortened) counts.payloadsShortened += 1;
      events.push(mined.event);
    }
    const session = { cwd: transcript.cwd, prompt: transcript.prompt, platform: host };
    const committed = guard(() =>
      deps.store.commit({ sessionId: target.sessionId, events, marks: [{ segment: 0, endOffset: completedTo }], session, nowMs: deps.now() }),
    );
    progress.eventsQueued = committed.queued;
    progress.eventsDuplicate = committed.duplicate + counts.alreadyQueued;
    if (committed.queued > 0) deps.wake(target.sessionId);
    const level = guard(() =>
      deps.store.sessionLevel({
        sessionId: target.sessionId,
        segments: 1,
        lastAssistantMessage: transcript.lastAssistantText,
        transcriptPath: target.path,
        session,
        nowMs: deps.now(),
      }),
    );
    if (level === 'queued') deps.wake(target.sessionId);
    const next: TranscriptFileState = {
      path: target.path,
      sessionId: target.sessionId,
      size: target.size,
      mtimeMs: Math.round(target.mtimeMs),
      segmentStarts: [0],
      boundaries: [],
      scannedTo: completedTo,
      lastSegmentHasContent: transcript.calls.length > 0,
      complete: true,
      checkedAt: deps.now(),
    };
    guard(() => deps.store.saveFile(next));
    deps.cache().set(target.path, next);
    deps.backoff.succeeded(target.path);
    return report({ segments: 1, segmentsMined: 1, summaryQueued: level === 'queued' });
  } catch (error) {
    const failure = error instanceof MiningAttemptError ? error : new MiningAttemptError('store', String(error));
    const entry = deps.backoff.failed(target.path, startedMs);
    return report({ outcome: 'failed', segments: 1, segmentsFailed: 1, error: `${failure.kind}: ${failure.message}`, retryAtMs: entry.retryAtMs });
  } finally {
    await reader?.close().catch(() => undefined);
  }
}

/** `~/.gemini/tmp/<project>/.project_root` holds the project's path (the chat file does not). */
async function geminiProjectRoot(chatFile: string): Promise<string | null> {
  try {
    const root = (await fs.readFile(path.join(path.dirname(path.dirname(chatFile)), '.project_root'), 'utf8')).trim();
    return root.startsWith('/') ? root : null;
  } catch {
    return null;
  }
}

const exists = (file: string) =>
  fs.access(file).then(
    () => true,
    () => false,
  );
