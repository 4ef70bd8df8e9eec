import type Database from 'better-sqlite3';

/** The scan cache of one transcript file (see migration 0300_mining). */
export interface TranscriptFileState {
  path: string;
  sessionId: string;
  size: number;
  mtimeMs: number;
  /** Byte offset where each segment starts; the last segment is still open. */
  segmentStarts: number[];
  /** Every compact_boundary seen, as [offset, uuid]: a resumed pass needs those before its start. */
  boundaries: Array<[number, string]>;
  scannedTo: number;
  lastSegmentHasContent: boolean;
  /** Every segment was mined when the file had this size and mtime. */
  complete: boolean;
  checkedAt: number;
}

export interface SessionMiningState {
  summarizedSegments: number;
  recoveredSinceSummary: number;
}

/** Table access for transcript mining; the mining module decides what to write. */
export function createMinedTranscripts(db: Database.Database) {
  const keysOf = db.prepare('SELECT key, segment, end_offset FROM mined_transcript_keys WHERE session_id = ?');
  const upsertKey = db.prepare(`
    INSERT INTO mined_transcript_keys (key, session_id, segment, end_offset, events_queued, mined_at)
    VALUES (@key, @sessionId, @segment, @endOffset, @eventsQueued, @nowMs)
    ON CONFLICT (key) DO UPDATE SET
      end_offset = max(coalesce(mined_transcript_keys.end_offset, 0), excluded.end_offset),
      events_queued = mined_transcript_keys.events_queued + excluded.events_queued,
      mined_at = excluded.mined_at`);
  const insertLegacy = db.prepare('INSERT OR IGNORE INTO mined_transcript_keys (key, session_id, segment, end_offset, mined_at) VALUES (?, ?, NULL, NULL, ?)');
  const deleteKey = db.prepare('DELETE FROM mined_transcript_keys WHERE key = ?');
  const allFiles = db.prepare('SELECT * FROM mined_transcript_files');
  const oneFile = db.prepare('SELECT * FROM mined_transcript_files WHERE path = ?');
  const saveFile = db.prepare(`
    INSERT INTO mined_transcript_files (path, session_id, size, mtime_ms, segments, scanned_to, last_segment_has_content, complete, checked_at)
    VALUES (@path, @sessionId, @size, @mtimeMs, @segments, @scannedTo, @lastSegmentHasContent, @complete, @checkedAt)
    ON CONFLICT (path) DO UPDATE SET session_id = excluded.session_id, size = excluded.size, mtime_ms = excluded.mtime_ms,
      segments = excluded.segments, scanned_to = excluded.scanned_to, last_segment_has_content = excluded.last_segment_has_content,
      complete = excluded.complete, checked_at = excluded.checked_at`);
  const sessionRow = db.prepare('SELECT summarized_segments, recovered_since_summary FROM mined_transcript_sessions WHERE session_id = ?');
  const addRecovered = db.prepare(`
    INSERT INTO mined_transcript_sessions (session_id, recovered_since_summary) VALUES (?, ?)
    ON CONFLICT (session_id) DO UPDATE SET recovered_since_summary = recovered_since_summary + excluded.recovered_since_summary`);
  const markSummarized = db.prepare(`
    INSERT INTO mined_transcript_sessions (session_id, summarized_segments, recovered_since_summary, summarized_at) VALUES (?, ?, 0, ?)
    ON CONFLICT (session_id) DO UPDATE SET summarized_segments = excluded.summarized_segments, recovered_since_summary = 0, summarized_at = excluded.summarized_at`);

  return {
    /** Segment → offset it was mined up to, and the legacy whole-file key (its row key) if present. */
    keysFor(sessionId: string): { segments: Map<number, number>; legacyKey: string | null } {
      const segments = new Map<number, number>();
      let legacy: string | null = null;
      for (const row of keysOf.all(sessionId) as Array<{ key: string; segment: number | null; end_offset: number | null }>) {
        if (row.segment === null) legacy = row.key;
        else segments.set(row.segment, row.end_offset ?? 0);
      }
      return { segments, legacyKey: legacy };
    },
    markSegment(input: { key: string; sessionId: string; segment: number; endOffset: number; eventsQueued: number; nowMs: number }): void {
      upsertKey.run(input);
    },
    /** A whole-file key as older miners wrote it (imports, tests). */
    insertLegacyKey: (key: string, sessionId: string, nowMs: number) => insertLegacy.run(key, sessionId, nowMs).changes === 1,
    deleteKey: (key: string) => deleteKey.run(key).changes === 1,
    files: (): TranscriptFileState[] => (allFiles.all() as FileRow[]).map(toFileState),
    file(path: string): TranscriptFileState | null {
      const row = oneFile.get(path) as FileRow | undefined;
      return row ? toFileState(row) : null;
    },
    saveFile(state: TranscriptFileState): void {
      saveFile.run({
        path: state.path,
        sessionId: state.sessionId,
        size: state.size,
        mtimeMs: Math.round(state.mtimeMs),
        segments: JSON.stringify({ starts: state.segmentStarts, boundaries: state.boundaries }),
        scannedTo: state.scannedTo,
        lastSegmentHasContent: state.lastSegmentHasContent ? 1 : 0,
        complete: state.complete ? 1 : 0,
        checkedAt: state.checkedAt,
      });
    },
    session(sessionId: string): SessionMiningState {
      const row = sessionRow.get(sessionId) as { summarized_segments: number; recovered_since_summary: number } | undefined;
      return { summarizedSegments: row?.summarized_segments ?? 0, recoveredSinceSummary: row?.recovered_since_summary ?? 0 };
    },
    addRecovered: (sessionId: string, events: number) => void addRecovered.run(sessionId, events),
    markSummarized: (sessionId: string, segments: number, nowMs: number) => void markSummarized.run(sessionId, segments, nowMs),
  };
}

interface FileRow {
  path: string;
  session_id: string;
  size: number;
  mtime_ms: number;
  segments: string;
  scanned_to: number;
  last_segment_has_content: number;
  complete: number;
  checked_at: number;
}

function toFileState(row: FileRow): TranscriptFileState {
  let parsed: { starts?: unknown; boundaries?: unknown } = {};
  try {
    parsed = JSON.parse(row.segments) as typeof parsed;
  } catch {
    // A damaged cache row only costs a rescan.
  }
  const starts = Array.isArray(parsed.starts) && parsed.starts.every((n) => Number.isInteger(n) && n >= 0) ? (parsed.starts as number[]) : [];
  const boundaries = Array.isArray(parsed.boundaries)
    ? parsed.boundaries.filter((b): b is [number, string] => Array.isArray(b) && Number.isInteger(b[0]) && typeof b[1] === 'string')
    : [];
  return {
    path: row.path,
    sessionId: row.session_id,
    size: row.size,
    mtimeMs: row.mtime_ms,
    segmentStarts: starts.length > 0 ? starts : [0],
    boundaries,
    scannedTo: starts.length > 0 ? row.scanned_to : 0,
    lastSegmentHasContent: row.last_segment_has_content === 1,
    complete: starts.length > 0 && row.complete === 1,
    checkedAt: row.checked_at,
  };
}
