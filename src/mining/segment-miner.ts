import { fitPayload } from '../hosts/fit-payload.js';
import type { QueuedEvent } from '../hosts/index.js';
import { toRecord, type TranscriptRecord } from './transcript-record.js';

/**
 * The mining state machine over one pass of one transcript: lines in (bytes and offsets), tool
 * events and closed segments out. Pure: the caller reads the file and commits what comes out.
 *
 * Segments: a `compact_boundary` line starts a new segment when the current one already holds
 * conversation, so a file that opens with a boundary has one segment and indices depend only on
 * the bytes before them (stable as the file grows). The `isCompactSummary` line after a boundary
 * is context, not content. Lines are deduplicated by `uuid`; tool_use / tool_result pairs are
 * matched by id (parallel calls are not adjacent).
 *
 * Speed: most lines are never parsed. A line is parsed only when a quoted marker (a JSON key or
 * exact value; markers cannot match inside a JSON string, whose quotes are escaped) says it can
 * hold a tool call, a tool result, a boundary, assistant text or the first prompt; a tool result
 * whose id the queue already holds is not parsed at all.
 */
/** A mined tool call as the hooks would have delivered it, less the session (known to the caller). */
export type MinedPayload = DistributiveOmit<Extract<QueuedEvent, { tool_name: string }>, 'session_id' | 'at'> & { at: number | null };
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface MinedEvent {
  toolUseId: string;
  /** Other ids the hooks may deliver the same call under (Copilot's provisional one): kept as duplicates of it. */
  alsoKnownAs?: string[];
  segment: number;
  payload: MinedPayload;
}

export interface ClosedSegment {
  segment: number;
  startOffset: number;
  endOffset: number;
  /** The last segment of the file: it may still grow. */
  open: boolean;
}

export interface MiningCounts {
  linesParsed: number;
  corruptLines: number;
  oversizedLines: number;
  duplicateLines: number;
  /** Tool results whose call the queue already held (delivered by the hooks or an earlier pass). */
  alreadyQueued: number;
  /** Calls whose result never came before their segment closed. */
  unpairedCalls: number;
  /** Results whose call is not in the file (cut by an oversized line, or written elsewhere). */
  orphanResults: number;
  /** Events whose longest strings were shortened to the hooks' body limit. */
  payloadsShortened: number;
}

export interface SegmentMinerInit {
  transcriptPath: string;
  /** Segment index and byte offset where this pass starts (always a segment start). */
  startSegment: number;
  startOffset: number;
  /** Lines before this offset were counted by an earlier pass; their faults are not counted again. */
  seenBefore: number;
  /** Offset up to which a segment was already mined (-1: not mined). Results before it are skipped. */
  coveredTo(segment: number): number;
  /** Whether the queue already holds this tool_use_id for the session. */
  alreadyQueued(toolUseId: string): boolean;
  /** Look for the session's first prompt (only useful from the start of the file). */
  wantPrompt: boolean;
  /** uuids of the boundaries before startOffset: a copy of one of them later is not a new segment. */
  knownBoundaryUuids: readonly string[];
  /** Only find segments (legacy key migration): no events, no prompt, no text. */
  scanOnly?: boolean;
}

const PROMPT_MAX_CHARS = 100_000;
const LAST_MESSAGE_MAX_CHARS = 200_000;

const MARK = {
  toolResult: Buffer.from('"tool_use_id"'),
  toolUse: Buffer.from('"tool_use"'),
  boundary: Buffer.from('"compact_boundary"'),
  assistant: Buffer.from('"assistant"'),
  text: Buffer.from('"text"'),
  user: Buffer.from('"user"'),
};
const RESULT_ID = Buffer.from('"tool_use_id":"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

interface PendingCall {
  name: string;
  input: unknown;
  cwd: string | null;
  at: number | null;
  covered: boolean;
}

export function createSegmentMiner(init: SegmentMinerInit) {
  let segment = init.startSegment;
  let segmentStart = init.startOffset;
  let covered = init.coveredTo(segment);
  let hasContent = false;
  const starts: number[] = [init.startOffset];
  const uuids = new Set<string>(init.knownBoundaryUuids);
  const boundaries: Array<[number, string]> = [];
  const emitted = new Set<string>();
  const pending = new Map<string, PendingCall>();
  let events: MinedEvent[] = [];
  let closed: ClosedSegment[] = [];
  let lastMessage: { id: string | null; texts: string[] } | null = null;
  let prompt: string | null = null;
  let cwd: string | null = null;
  const counts: MiningCounts = {
    linesParsed: 0,
    corruptLines: 0,
    oversizedLines: 0,
    duplicateLines: 0,
    alreadyQueued: 0,
    unpairedCalls: 0,
    orphanResults: 0,
    payloadsShortened: 0,
  };

  function closeSegment(endOffset: number, open: boolean): void {
    closed.push({ segment, startOffset: segmentStart, endOffset, open });
    if (open) return;
    for (const call of pending.values()) if (!call.covered) counts.unpairedCalls += 1;
    pending.clear();
  }

  function onRecord(rec: TranscriptRecord, start: number, lineCovered: boolean, fresh: boolean): void {
    if (rec.uuid !== null) {
      if (uuids.has(rec.uuid)) {
        if (fresh) counts.duplicateLines += 1;
        return;
      }
      uuids.add(rec.uuid);
    }
    if (rec.isBoundary) {
      if (rec.uuid !== null) boundaries.push([start, rec.uuid]);
      if (!hasContent) return;
      closeSegment(start, false);
      segment += 1;
      segmentStart = start;
      starts.push(start);
      covered = init.coveredTo(segment);
      hasContent = false;
      return;
    }
    if (rec.isContent) hasContent = true;
    if (init.scanOnly === true) return;
    if (cwd === null && rec.cwd !== null) cwd = rec.cwd;
    if (init.wantPrompt && prompt === null && rec.prompt !== null) prompt = rec.prompt.slice(0, PROMPT_MAX_CHARS);
    if (rec.type === 'assistant' && !rec.isSidechain && rec.texts.length > 0) {
      if (lastMessage !== null && rec.messageId !== null && lastMessage.id === rec.messageId) lastMessage.texts.push(...rec.texts);
      else lastMessage = { id: rec.messageId, texts: [...rec.texts] };
    }
    for (const use of rec.toolUses) {
      if (!emitted.has(use.id)) pending.set(use.id, { name: use.name, input: use.input, cwd: rec.cwd, at: rec.timestampMs, covered: lineCovered });
    }
    if (lineCovered) {
      // Mined by an earlier pass: the call is settled; only calls still open may pair later.
      for (const result of rec.toolResults) pending.delete(result.toolUseId);
      return;
    }
    const single = rec.toolResults.length === 1;
    for (const result of rec.toolResults) {
      const id = result.toolUseId;
      const call = pending.get(id);
      pending.delete(id);
      if (emitted.has(id)) continue;
      if (call === undefined) {
        counts.orphanResults += 1;
        continue;
      }
      emitted.add(id);
      if (init.alreadyQueued(id)) {
        counts.alreadyQueued += 1;
        continue;
      }
      const common = {
        tool_name: call.name,
        tool_input: call.input,
        cwd: rec.cwd ?? call.cwd,
        at: rec.timestampMs ?? call.at,
        source: 'transcript' as const,
        transcript_path: init.transcriptPath,
        platform: 'claude-code',
      };
      // The structured toolUseResult is what hooks receive; it is unambiguous only on a line with one result.
      const response = single && rec.toolUseResult !== undefined ? rec.toolUseResult : result.content;
      const payload: MinedPayload = result.isError
        ? { kind: 'post_tool_use_failure', ...common, error: errorText(result.content), tool_response: response }
        : { kind: 'post_tool_use', ...common, tool_response: response };
      const fitted = fitPayload(payload);
      if (fitted.shortened) counts.payloadsShortened += 1;
      events.push({ toolUseId: id, segment, payload: fitted.value });
    }
  }

  /** Cheap look at a result line: its tool_use_ids, or null when the shape is unusual (then it is parsed). */
  function resultIds(bytes: Buffer, from: number, to: number): string[] | null {
    const ids: string[] = [];
    let at = bytes.indexOf(RESULT_ID, from);
    while (at >= 0 && at < to) {
      const begin = at + RESULT_ID.length;
      const end = bytes.indexOf(QUOTE, begin);
      if (end < 0 || end >= to || end - begin > 256) return null;
      for (let i = begin; i < end; i += 1) if (bytes[i] === BACKSLASH) return null;
      ids.push(bytes.toString('latin1', begin, end));
      at = bytes.indexOf(RESULT_ID, end);
    }
    return ids.length > 0 ? ids : null;
  }

  return {
    line(bytes: Buffer, start: number): void {
      let from = 0;
      let to = bytes.length;
      while (to > from && (bytes[to - 1] === 0x0d || bytes[to - 1] === 0x20 || bytes[to - 1] === 0x09)) to -= 1;
      while (from < to && (bytes[from] === 0x20 || bytes[from] === 0x09)) from += 1;
      if (from === to) return;
      const fresh = start >= init.seenBefore;
      if (bytes[from] !== 0x7b || bytes[to - 1] !== 0x7d) {
        if (fresh) counts.corruptLines += 1;
        return;
      }
      const view = from === 0 && to === bytes.length ? bytes : bytes.subarray(from, to);
      const lineCovered = init.scanOnly === true || start < covered;
      let parse: boolean;
      if (!hasContent && (view.indexOf(MARK.user) >= 0 || view.indexOf(MARK.assistant) >= 0)) {
        // Whether the segment holds conversation decides where the next segment starts: always
        // parse here, in every mode, so a scan-only pass and a mining pass agree on indices.
        parse = true;
      } else if (init.scanOnly === true) {
        parse = view.indexOf(MARK.boundary) >= 0;
      } else if (view.indexOf(MARK.toolResult) >= 0) {
        const ids = resultIds(view, 0, view.length);
        if (lineCovered || ids?.every((id) => emitted.has(id) || init.alreadyQueued(id))) {
          for (const id of ids ?? []) {
            pending.delete(id);
            if (!lineCovered && !emitted.has(id)) {
              emitted.add(id);
              counts.alreadyQueued += 1;
            }
          }
          return;
        }
        parse = true;
      } else {
        parse =
          view.indexOf(MARK.toolUse) >= 0 ||
          view.indexOf(MARK.boundary) >= 0 ||
          (view.indexOf(MARK.assistant) >= 0 && view.indexOf(MARK.text) >= 0) ||
          (init.wantPrompt && prompt === null && view.indexOf(MARK.user) >= 0);
      }
      if (!parse) return;
      let value: unknown;
      try {
        value = JSON.parse(view.toString('utf8'));
      } catch {
        if (fresh) counts.corruptLines += 1;
        return;
      }
      counts.linesParsed += 1;
      const rec = toRecord(value);
      if (rec !== null) onRecord(rec, start, lineCovered, fresh);
    },
    oversized(start: number, _end: number): void {
      if (start >= init.seenBefore) counts.oversizedLines += 1;
    },
    /** End of the pass: the last segment closes as open, up to the last complete line. */
    finish(completedTo: number): void {
      closeSegment(completedTo, true);
    },
    /** What came out since the last take: commit events before the segments they close. */
    take(): { events: MinedEvent[]; closed: ClosedSegment[] } {
      const out = { events, closed };
      events = [];
      closed = [];
      return out;
    },
    /** Start offsets of the segments seen in this pass, from startSegment on. */
    segmentStarts: () => [...starts],
    /** Every boundary seen in this pass as [offset, uuid] (persisted so a resumed pass agrees with a full one). */
    boundaries: () => [...boundaries],
    currentSegment: () => segment,
    currentSegmentHasContent: () => hasContent,
    lastAssistantText: () => (lastMessage === null ? null : lastMessage.texts.join('\n').slice(0, LAST_MESSAGE_MAX_CHARS)),
    prompt: () => prompt,
    cwd: () => cwd,
    counts: () => ({ ...counts }),
  };
}

export type SegmentMiner = ReturnType<typeof createSegmentMiner>;

/** A failed call's result as the error text a PostToolUseFailure hook would have carried. */
function errorText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : '')).join('\n');
  return 'failed';
}
