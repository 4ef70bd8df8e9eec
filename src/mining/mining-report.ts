import type { MiningCounts } from './segment-miner.js';
import type { TranscriptTarget } from './transcript-target.js';

/** What happened to one transcript file in one attempt. */
export type FileOutcome =
  | 'unchanged' // same size and mtime as when every segment was mined: one stat, nothing read
  | 'busy' // written to less than the idle time ago (watcher only): looked at again next pass
  | 'backoff' // inside its retry window after a failure: skipped, not queued
  | 'mined' // read; new segments (or the grown open one) mined
  | 'migrated' // a legacy whole-file key became segment keys
  | 'failed' // see docs/mining.md for what counts as a failure
  | 'gone' // vanished between listing and reading
  | 'aborted'; // the watcher was stopping

export interface FileReport {
  path: string;
  sessionId: string;
  outcome: FileOutcome;
  segments: number;
  segmentsMined: number;
  segmentsFailed: number;
  eventsQueued: number;
  /** Events the queue already held (the hooks delivered them): not observed twice. */
  eventsDuplicate: number;
  summaryQueued: boolean;
  bytesRead: number;
  counts: MiningCounts;
  error?: string;
  retryAtMs?: number;
}

export interface PassReport {
  files: number;
  byOutcome: Record<FileOutcome, number>;
  segmentsMined: number;
  segmentsFailed: number;
  legacyKeysMigrated: number;
  eventsQueued: number;
  eventsDuplicate: number;
  summariesQueued: number;
  corruptLines: number;
  oversizedLines: number;
  unpairedCalls: number;
  payloadsShortened: number;
  bytesRead: number;
  failures: Array<{ path: string; error: string; retryAtMs?: number }>;
}

export function emptyPassReport(): PassReport {
  return {
    files: 0,
    byOutcome: { unchanged: 0, busy: 0, backoff: 0, mined: 0, migrated: 0, failed: 0, gone: 0, aborted: 0 },
    segmentsMined: 0,
    segmentsFailed: 0,
    legacyKeysMigrated: 0,
    eventsQueued: 0,
    eventsDuplicate: 0,
    summariesQueued: 0,
    corruptLines: 0,
    oversizedLines: 0,
    unpairedCalls: 0,
    payloadsShortened: 0,
    bytesRead: 0,
    failures: [],
  };
}

export function addFileReport(pass: PassReport, file: FileReport): void {
  pass.files += 1;
  pass.byOutcome[file.outcome] += 1;
  pass.segmentsMined += file.segmentsMined;
  pass.segmentsFailed += file.segmentsFailed;
  if (file.outcome === 'migrated') pass.legacyKeysMigrated += 1;
  pass.eventsQueued += file.eventsQueued;
  pass.eventsDuplicate += file.eventsDuplicate;
  if (file.summaryQueued) pass.summariesQueued += 1;
  pass.corruptLines += file.counts.corruptLines;
  pass.oversizedLines += file.counts.oversizedLines;
  pass.unpairedCalls += file.counts.unpairedCalls;
  pass.payloadsShortened += file.counts.payloadsShortened;
  pass.bytesRead += file.bytesRead;
  if (file.outcome === 'failed')
    pass.failures.push({ path: file.path, error: file.error ?? 'unknown', ...(file.retryAtMs === undefined ? {} : { retryAtMs: file.retryAtMs }) });
}

/** Whether a pass did anything worth a telemetry count (an idle watcher sends nothing). */
export function passHasActivity(pass: PassReport): boolean {
  return pass.byOutcome.mined + pass.byOutcome.migrated + pass.byOutcome.failed + pass.byOutcome.backoff > 0;
}

/** The mining_rollup increments of one pass (field names are the schema's). */
export function miningRollupIncrements(pass: PassReport): Record<string, number> {
  return {
    files_mined: pass.byOutcome.mined,
    segments_mined: pass.segmentsMined,
    segments_failed: pass.segmentsFailed,
    files_failed: pass.byOutcome.failed,
    backoff_skips: pass.byOutcome.backoff,
    legacy_keys_migrated: pass.legacyKeysMigrated,
    events_queued: pass.eventsQueued,
    events_already_queued: pass.eventsDuplicate,
    summaries_queued: pass.summariesQueued,
    corrupt_lines: pass.corruptLines,
    oversized_lines: pass.oversizedLines,
    payloads_shortened: pass.payloadsShortened,
    bytes_read: pass.bytesRead,
  };
}

/** A file's report before anything was read. */
export function emptyReport(target: TranscriptTarget, outcome: FileOutcome): FileReport {
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

export function emptyCounts(): MiningCounts {
  return { linesParsed: 0, corruptLines: 0, oversizedLines: 0, duplicateLines: 0, alreadyQueued: 0, unpairedCalls: 0, orphanResults: 0, payloadsShortened: 0 };
}
