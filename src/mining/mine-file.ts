import type { TranscriptFileState } from '../store/index.js';
import type { MineFileConfig, MineFileDeps, MineFileOptions } from './mine-file-deps.js';
import { createLineSplitter } from './line-splitter.js';
import { guard, MiningAttemptError } from './attempt-error.js';
import { openNodeFile, type FileReader } from './file-reader.js';
import { readChunks } from './read-chunks.js';
import { emptyCounts, emptyReport, type FileOutcome, type FileReport } from './mining-report.js';
import type { TranscriptTarget } from './transcript-target.js';
import { createSegmentMiner, type SegmentMiner } from './segment-miner.js';
import { mineHostFile } from './host-file.js';
import { hostOfTranscriptPath } from './hosts/host-transcripts.js';
import { readSubagentType, subagentKeyId } from './subagent-transcript.js';

export type { FileReader } from './file-reader.js';
export type { TranscriptTarget } from './transcript-target.js';
export { DEFAULT_MINE_FILE_CONFIG, type MineFileConfig, type MineFileDeps, type MineFileOptions } from './mine-file-deps.js';

const NEWLINE = 0x0a;

/**
 * Mines one transcript file: the edge around the pure segment miner. Reads from the first
 * segment that needs work (the scan cache knows where segments start), streams it in chunks,
 * commits each chunk's events and the segments they close in one transaction, and yields to
 * the event loop between chunks.
 */
export async function mineFile(config: MineFileConfig, deps: MineFileDeps, target: TranscriptTarget, options: MineFileOptions = {}): Promise<FileReport> {
  const startedMs = deps.now();
  let cache: Map<string, TranscriptFileState>;
  try {
    cache = deps.cache();
  } catch (error) {
    const entry = deps.backoff.failed(target.path, startedMs);
    return {
      ...emptyReport(target, 'failed'),
      segmentsFailed: 1,
      error: `store: ${error instanceof Error ? error.message : String(error)}`,
      retryAtMs: entry.retryAtMs,
    };
  }
  const state = cache.get(target.path);
  const report = (outcome: FileOutcome, extra: Partial<FileReport> = {}): FileReport => ({
    ...emptyReport(target, outcome),
    segments: state?.segmentStarts.length ?? 0,
    ...extra,
  });
  if (state?.complete && state.size === target.size && state.mtimeMs === Math.round(target.mtimeMs) && state.sessionId === target.sessionId) {
    return report('unchanged');
  }
  if (options.idleMs !== undefined && startedMs - target.mtimeMs < options.idleMs) return report('busy');
  if (deps.backoff.blocked(target.path, startedMs)) return report('backoff', { retryAtMs: deps.backoff.entry(target.path)?.retryAtMs ?? startedMs });
  const host = target.host ?? hostOfTranscriptPath(target.path);
  if (host !== 'claude-code') return mineHostFile(config, deps, target, host, options);

  // A subagent's transcript: its segments are keyed apart from the session's own file, its tool
  // events name the subagent, and the session's summary is the main transcript's business.
  const agent = target.agent ? { agent_id: target.agent.id, agent_type: readSubagentType(target.path) } : null;
  const keyId = target.agent ? subagentKeyId(target.sessionId, target.agent.id) : target.sessionId;
  const progress = { segmentsMined: 0, eventsQueued: 0, eventsDuplicate: 0, bytesRead: 0 };
  let miner: SegmentMiner | null = null;
  let startSegment = 0;
  let reader: FileReader | null = null;
  try {
    if (guard(() => deps.store.sessionFailing(target.sessionId))) {
      throw new MiningAttemptError('provider_failing', 'the session’s observer calls are failing at the provider; mining waits instead of adding to them');
    }
    const keys = guard(() => deps.store.keysFor(keyId));
    try {
      reader = await (deps.openFile ?? openNodeFile)(target.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return report('gone');
      throw new MiningAttemptError('read', `cannot open: ${(error as Error).message}`);
    }
    const legacy = keys.legacyKey !== null && keys.segments.size === 0 ? keys.legacyKey : null;
    const plan = legacy !== null ? null : await resumePlan(reader, state, target, keys.segments);
    const start = plan ?? { segment: 0, offset: 0, seenBefore: 0, starts: [] as number[], boundaries: [] as Array<[number, string]> };
    startSegment = start.segment;
    const coveredTo = (segment: number) => keys.segments.get(segment) ?? -1;
    const activeMiner = createSegmentMiner({
      transcriptPath: target.path,
      startSegment: start.segment,
      startOffset: start.offset,
      seenBefore: start.seenBefore,
      coveredTo,
      alreadyQueued: (id) => deps.store.alreadyQueued(target.sessionId, id),
      wantPrompt: start.offset === 0 && agent === null,
      knownBoundaryUuids: start.boundaries.map(([, uuid]) => uuid),
      scanOnly: legacy !== null,
    });
    miner = activeMiner;
    const splitter = createLineSplitter(start.offset, config.maxLineBytes, {
      line: (bytes, lineStart) => activeMiner.line(bytes, lineStart),
      oversized: (lineStart, lineEnd) => activeMiner.oversized(lineStart, lineEnd),
    });

    /** Commits what the miner produced: events first, then the keys of the segments they close. */
    const commit = (out: ReturnType<SegmentMiner['take']>): void => {
      const marks = out.closed
        .filter((c) => c.endOffset > coveredTo(c.segment) || !keys.segments.has(c.segment))
        .map((c) => ({ segment: c.segment, endOffset: c.endOffset }));
      if (out.events.length === 0 && marks.length === 0) return;
      const result = guard(() =>
        deps.store.commit({
          sessionId: target.sessionId,
          keyId,
          events: agent
            ? out.events.map((e) => ({
                ...e,
                payload: { ...e.payload, agent_id: agent.agent_id, ...(agent.agent_type ? { agent_type: agent.agent_type } : {}) },
              }))
            : out.events,
          marks,
          session: { cwd: activeMiner.cwd(), prompt: activeMiner.prompt() },
          nowMs: deps.now(),
        }),
      );
      for (const mark of marks) keys.segments.set(mark.segment, mark.endOffset);
      progress.segmentsMined += marks.length;
      progress.eventsQueued += result.queued;
      progress.eventsDuplicate += result.duplicate;
      if (result.queued > 0) deps.wake(target.sessionId);
    };

    const read = await readChunks(reader, start.offset, config.chunkBytes, options.signal, (bytes) => {
      splitter.push(bytes);
      progress.bytesRead += bytes.length;
      options.onBytes?.(bytes.length);
      if (legacy === null) commit(activeMiner.take());
    });
    if (read === 'aborted') return report('aborted', { ...progress, counts: activeMiner.counts() });
    const completedTo = splitter.completedTo();
    activeMiner.finish(completedTo);
    const starts = [...start.starts, ...activeMiner.segmentStarts()];
    const boundaries = [...start.boundaries, ...activeMiner.boundaries()];

    let summaryQueued = false;
    let outcome: FileOutcome = 'mined';
    if (legacy !== null) {
      // Every segment that exists now was covered by the whole-file key; later ones are mined normally.
      const segments = activeMiner.take().closed.map((c) => ({ segment: c.segment, endOffset: c.endOffset }));
      guard(() => deps.store.migrateLegacy({ sessionId: target.sessionId, legacyKey: legacy, segments, nowMs: deps.now() }));
      outcome = 'migrated';
    } else if (agent !== null) {
      commit(activeMiner.take());
    } else {
      commit(activeMiner.take());
      const level = guard(() =>
        deps.store.sessionLevel({
          sessionId: target.sessionId,
          segments: starts.length,
          lastAssistantMessage: activeMiner.lastAssistantText(),
          transcriptPath: target.path,
          session: { cwd: activeMiner.cwd(), prompt: activeMiner.prompt() },
          nowMs: deps.now(),
        }),
      );
      summaryQueued = level === 'queued';
      if (summaryQueued) deps.wake(target.sessionId);
    }
    const next: TranscriptFileState = {
      path: target.path,
      sessionId: target.sessionId,
      size: target.size,
      mtimeMs: Math.round(target.mtimeMs),
      segmentStarts: starts,
      boundaries,
      scannedTo: completedTo,
      lastSegmentHasContent: activeMiner.currentSegmentHasContent(),
      complete: true,
      checkedAt: deps.now(),
    };
    guard(() => deps.store.saveFile(next));
    cache.set(target.path, next);
    deps.backoff.succeeded(target.path);
    const counts = activeMiner.counts();
    return report(outcome, {
      ...progress,
      segments: starts.length,
      eventsDuplicate: progress.eventsDuplicate + counts.alreadyQueued,
      summaryQueued,
      counts,
    });
  } catch (error) {
    const failure = error instanceof MiningAttemptError ? error : new MiningAttemptError('store', String(error));
    const entry = deps.backoff.failed(target.path, startedMs);
    // The segments this attempt reached and did not mark (at least one: the file had changed).
    const reached = miner ? miner.currentSegment() - startSegment + 1 : 1;
    return report('failed', {
      ...progress,
      segments: miner ? miner.currentSegment() + 1 : (state?.segmentStarts.length ?? 0),
      segmentsFailed: Math.max(1, reached - progress.segmentsMined),
      counts: miner?.counts() ?? emptyCounts(),
      error: `${failure.kind}: ${failure.message}`,
      retryAtMs: entry.retryAtMs,
    });
  } finally {
    await reader?.close().catch(() => undefined);
  }
}

interface ResumePlan {
  segment: number;
  offset: number;
  seenBefore: number;
  /** Starts of the segments before `segment` (unchanged). */
  starts: number[];
  boundaries: Array<[number, string]>;
}

/**
 * Where this pass starts. Transcripts are append-only, so a file that only grew resumes at the
 * first segment that needs work (normally the open last one); anything else is read from 0.
 */
async function resumePlan(
  reader: FileReader,
  state: TranscriptFileState | undefined,
  target: TranscriptTarget,
  keys: Map<number, number>,
): Promise<ResumePlan | null> {
  if (!state || state.sessionId !== target.sessionId || state.scannedTo > target.size || state.scannedTo === 0) return null;
  const probe = Buffer.alloc(1);
  const n = await reader.read(probe, 1, state.scannedTo - 1).catch(() => 0);
  if (n !== 1 || probe[0] !== NEWLINE) return null; // rewritten, not appended: start over
  const starts = state.segmentStarts;
  let segment = starts.length - 1;
  for (let s = 0; s < starts.length - 1; s += 1) {
    if ((keys.get(s) ?? -1) < starts[s + 1]!) {
      segment = s;
      break;
    }
  }
  const offset = starts[segment]!;
  return { segment, offset, seenBefore: state.scannedTo, starts: starts.slice(0, segment), boundaries: state.boundaries.filter(([at]) => at < offset) };
}
