/**
 * How often the background checkpointer copies the write-ahead log back (src/store/checkpointer.ts):
 * about `targetFrames` pages a checkpoint, never sooner than `minMs` apart, never later than `maxMs`.
 * A checkpoint costs two fsyncs and a write of every page changed since the last, however few: at an
 * agent's pace (a tool call every few seconds, a handful of pages each) one every 2 s cost more
 * CPU than the hooks' own commits between them. Under a burst (an import, a mining run) the log is
 * still copied back every `minMs`, as before.
 */
export interface CheckpointPacing {
  minMs: number;
  maxMs: number;
  targetFrames: number;
}

/** 1,000 pages: 4 MB of log. */
export const CHECKPOINT_PACING: CheckpointPacing = { minMs: 2_000, maxMs: 30_000, targetFrames: 1_000 };

/** What one checkpoint found: the log's length in frames, whether all of it was copied back, and the data version before it. */
export interface CheckpointSeen {
  log: number;
  complete: boolean;
  dataVersion: number;
}

/*
 * Both functions below run in the checkpointer's thread from their source text: each uses only its
 * arguments (no import, nothing else of this module).
 */

/**
 * The frames written since the checkpoint before. Another connection's commit changes the data
 * version; a log copied back whole is started afresh by the next commit, so its whole length is new.
 */
export function freshFrames(before: CheckpointSeen, now: CheckpointSeen): number {
  if (now.dataVersion === before.dataVersion || !(now.log > 0)) return 0;
  return before.complete ? now.log : Math.max(0, now.log - before.log);
}

/** The wait before the next checkpoint: `targetFrames` at the rate the last `elapsedMs` wrote them. */
export function nextCheckpointDelayMs(fresh: number, elapsedMs: number, pacing: CheckpointPacing): number {
  if (!(fresh > 0)) return pacing.maxMs;
  const due = (pacing.targetFrames * Math.max(1, elapsedMs)) / fresh;
  return Math.round(Math.min(pacing.maxMs, Math.max(pacing.minMs, due)));
}
