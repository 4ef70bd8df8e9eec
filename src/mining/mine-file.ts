import fs from 'node:fs/promises';
import type { TranscriptFileState } from '../store/index.js';
import type { BackoffMap } from './backoff.js';
import { createLineSplitter } from './line-splitter.js';
import type { FileOutcome, FileReport } from './mining-report.js';
import type { MiningStore } from './mining-store.js';
import { createSegmentMiner, type MiningCounts, type SegmentMiner } from './segment-miner.js';

/**
 * Mines one transcript file: the edge around the pure segment miner. Reads from the first
 * segment that needs work (the scan cache knows where segments start), streams it in chunks,
 * commits each chunk's events and the segments they close in one transaction, and yields to
 * the event loop between chunks.
 */
export interface MineFileConfig {
  chunkBytes: number;
  /** Longer lines are skipped and counted (see docs/mining.md for the cap). */
  maxLineBytes: number;
}

export const DEFAULT_MINE_FILE_CONFIG: MineFileConfig = { chunkBytes: 1024 * 1024, maxLineBytes: 64 * 1024 * 1024 };

/** A transcript as listed: one stat per file. */
export interface TranscriptTarget {
  path: string;
  sessionId: string;
  size: number;
  mtimeMs: number;
}

export interface FileReader {
  read(buffer: Buffer, length: number, position: number): Promise<number>;
  close(): Promise<void>;
}

export interface MineFileDeps {
  store: MiningStore;
  /** The scan cache (loaded once from the store, written through). */
  cache(): Map<string, TranscriptFileState>;
  backoff: BackoffMap;
  now(): number;
  wake(sessionId: string): void;
  openFile?(path: string): Promise<FileReader>;
}

export interface MineFileOptions {
  /** Only files untouched for this long are read (the watcher: 2 min); the CLI reads every file. */
  idleMs?: number;
  signal?: AbortSignal;
  onBytes?(bytes: number): void;
}

/** A failure of the attempt (the file, the store or the provider), as opposed to a bad line. */
export class MiningAttemptError extends Error {
  constructor(
    readonly kind: 'provider_failing' | 'read' | 'store',
    message: string,
  ) {
    super(message);
    this.name = 'MiningAttemptError';
  }
}

const NEWLINE = 0x0a;

async function openNodeFile(path: string): Promise<FileReader> {
  const handle = await fs.open(path, 'r');
  return {
    read: async (buffer, length, position) => (await handle.read(buffer, 0, length, position)).bytesRead,
    close: () => handle.close(),
  };
}

export async function mineFile(config: MineFileConfig, deps: MineFileDeps, target: TranscriptTarget, options: MineFileOptions = {}): Promise<FileReport> {
  const startedMs = deps.now();
  let cache: Map<string, TranscriptFileState>;
  try {
    cache = deps.cache();
  } catch (error) {
    const entry = deps.backoff.failed(target.path, startedMs);
    return { ...emptyReport(target, 'failed'), segmentsFailed: 1, error: `store: ${error instanceof Error ? error.message : String(error)}`, retryAtMs: entry.retryAtMs };
  }
  const state = cache.get(target.path);
  const report = (outcome: FileOutcome, extra: Partial<FileReport> = {}): FileReport => ({
    ...emptyReport(target, outcome),
    segments: state?.segmentStarts.length ?? 0,
    ...extra,
  });
  if (state && state.complete && state.size === target.size && state.mtimeMs === Math.round(target.mtimeMs) && state.sessionId === target.sessionId) {
    return report('unchanged');
  }
  if (options.idleMs !== undefined && startedMs - target.mtimeMs < options.idleMs) return report('busy');
  if (deps.backoff.blocked(target.path, startedMs)) return report('backoff', { retryAtMs: deps.backoff.entry(target.path)?.retryAtMs ?? startedMs });

  const progress = { segmentsMined: 0, eventsQueued: 0, eventsDuplicate: 0, bytesRead: 0 };
  let miner: SegmentMiner | null = null;
  let startSegment = 0;
  let reader: FileReader | null = null;
  try {
    if (guard(() => deps.store.sessionFailing(target.sessionId))) {
      throw new MiningAttemptError('provider_failing', 'the session’s observer calls are failing at the provider; mining waits instead of adding to them');
    }
    const keys = guard(() => deps.store.keysFor(target.sessionId));
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
      wantPrompt: start.offset === 0,
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
      const marks = out.closed.filter((c) => c.endOffset > coveredTo(c.segment) || !keys.segments.has(c.segment)).map((c) => ({ segment: c.segment, endOffset: c.endOffset }));
      if (out.events.length === 0 && marks.length === 0) return;
      const result = guard(() =>
        deps.store.commit({ sessionId: target.sessionId, events: out.events, marks, session: { cwd: activeMiner.cwd(), prompt: activeMiner.prompt() }, nowMs: deps.now() }),
      );
      for (const mark of marks) keys.segments.set(mark.segment, mark.endOffset);
      progress.segmentsMined += marks.length;
      progress.eventsQueued += result.queued;
      progress.eventsDuplicate += result.duplicate;
      if (result.queued > 0) deps.wake(target.sessionId);
    };

    const buffer = Buffer.allocUnsafe(config.chunkBytes);
    let position = start.offset;
    for (;;) {
      if (options.signal?.aborted) return report('aborted', { ...progress, counts: activeMiner.counts() });
      let n: number;
      try {
        n = await reader.read(buffer, buffer.length, position);
      } catch (error) {
        throw new MiningAttemptError('read', `read failed at byte ${position}: ${(error as Error).message}`);
      }
      if (n === 0) break;
      splitter.push(buffer.subarray(0, n));
      position += n;
      progress.bytesRead += n;
      options.onBytes?.(n);
      if (legacy === null) commit(activeMiner.take());
    }
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

/** Store calls that throw are store failures of the attempt. */
function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof MiningAttemptError) throw error;
    throw new MiningAttemptError('store', error instanceof Error ? error.message : String(error));
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
async function resumePlan(reader: FileReader, state: TranscriptFileState | undefined, target: TranscriptTarget, keys: Map<number, number>): Promise<ResumePlan | null> {
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

function emptyReport(target: TranscriptTarget, outcome: FileOutcome): FileReport {
  return {
    path: target.path,
    sessionId: target.sessionId,
    outcome,
    segments: 0,
    segmentsMined: 0,
    segmentsFailed: 0,
    eventsQueued: 0,
    eventsDuplicate: 0,
    summaryQueued: false,
    bytesRead: 0,
    counts: emptyCounts(),
  };
}

function emptyCounts(): MiningCounts {
  return { linesParsed: 0, corruptLines: 0, oversizedLines: 0, duplicateLines: 0, alreadyQueued: 0, unpairedCalls: 0, orphanResults: 0, payloadsShortened: 0 };
}
