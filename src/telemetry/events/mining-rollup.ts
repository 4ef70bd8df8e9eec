import { count, windowStart, type EventSpec } from '../field-types.js';

/** What started a mining pass: the worker's periodic pass, a session's end (catch-up), or `memtrace mine`. */
const MINING_TRIGGERS = ['watch', 'session_end', 'cli'] as const;

export const MINING_ROLLUP: EventSpec = {
  name: 'mining_rollup',
  description: 'Transcript mining: segments mined or failed, backoff skips, legacy keys migrated, bad lines. Passes that found nothing changed send nothing.',
  cadence: 'one per 5-minute window with mining activity, per trigger',
  fields: [
    { key: 'trigger', type: { kind: 'enum', values: MINING_TRIGGERS }, description: 'the worker’s periodic pass, a session’s end, or memtrace mine' },
    count('files_mined', 'transcript files read and mined'),
    count('files_failed', 'attempts that failed (unreadable file, store error, or the session’s observer calls failing)'),
    count('segments_mined', 'segments whose dedup key was written or advanced'),
    count('segments_failed', 'segments a failed attempt reached and did not mark'),
    count('backoff_skips', 'attempts skipped inside a file’s retry window'),
    count('legacy_keys_migrated', 'whole-file dedup keys migrated to segment keys'),
    count('events_queued', 'tool events the hooks missed, queued for observation'),
    count('events_already_queued', 'tool events the queue already held (delivered by the hooks)'),
    count('summaries_queued', 'session summary requests queued by session-level mining'),
    count('corrupt_lines', 'lines skipped as corrupt or truncated'),
    count('oversized_lines', 'lines skipped for exceeding the line cap'),
    count('payloads_shortened', 'mined events whose longest strings were shortened to the hooks’ 1 MiB body limit'),
    // A first pass over years of transcripts can read more than a COUNT's billion bytes in one window.
    { key: 'bytes_read', type: { kind: 'int', min: 0, max: 1_000_000_000_000 }, description: 'transcript bytes read' },
    windowStart,
  ],
};
