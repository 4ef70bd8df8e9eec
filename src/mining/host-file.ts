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
import type { TranscriptHost } from './hosts/host-transcripts.js';
import { minedEventOf, type HostTranscript } from './hosts/mined-call.js';
import { createLineSplitter } from './line-splitter.js';
import type { MineFileConfig, MineFileDeps, MineFileOptions } from './mine-file-deps.js';
import { emptyCounts, emptyReport, type FileReport } from './mining-report.js';
import type { MinedEvent } from './segment-miner.js';
import type { TranscriptTarget } from './transcript-target.js';

/**
 * Mines one Gemini CLI chat file, Codex rollout or Copilot CLI session log: the edge around the
 * pure readers in mining/hosts/. These files are one segment (no compaction boundary to track), so
 * a changed file is read whole — a Gemini record may be rewritten further down, so reading only
 * the new bytes would miss results — and the calls already queued (by the hooks or an earlier
 * pass) are recognised by id and not queued again. A call the hooks queued under another name
 * (Copilot's provisional id) is then named by the transcript's id too, so later passes and
 * `memtrace show` know it by its own id. Lines are read in bounded chunks; a line over the cap is
 * skipped and counted, as for Claude Code.
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
    try {
      reader = await (deps.openFile ?? openNodeFile)(target.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return report({ outcome: 'gone' });
      throw new MiningAttemptError('read', `cannot open: ${(error as Error).message}`);
    }
    const texts: string[] = [];
    const rollout: RolloutLine[] = [];
    const splitter = createLineSplitter(0, config.maxLineBytes, {
      line: (bytes) => {
        const text = bytes.toString('utf8');
        if (text.trim() === '') return;
        if (host !== 'codex') texts.push(text);
        else {
          const parsed = parseRolloutLine(text);
          if (parsed) rollout.push(parsed);
          else counts.corruptLines += 1;
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
    const completedTo = splitter.completedTo();
    counts.linesParsed = host === 'codex' ? rollout.length : texts.length;
    const transcript: HostTranscript =
      host === 'gemini-cli'
        ? readGeminiChat(readChatLines(texts), target.sessionId, await geminiProjectRoot(target.path))
        : host === 'copilot'
          ? readCopilotTranscript(readEventsLog(texts), target.sessionId)
          : readCodexRollout(rollout, target.sessionId);

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
