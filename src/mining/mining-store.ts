import { redactTextInto, redactValueInto, totalRedactions, type RedactionCounts } from '../redaction/index.js';
import type { ProjectResolver } from '../repository/project-resolver.js';
import { createMinedTranscripts, type Store, type TranscriptFileState } from '../store/index.js';
import { toolEventRecord } from '../observer/tool-evidence.js';
import { observerBytes } from '../observer/event-view.js';
import { segmentKey } from './segment-keys.js';
import type { MinedEvent } from './segment-miner.js';

/** What mining needs from storage; the SQLite store implements it (createStoreMiningStore). */
export interface MiningStore {
  /** The scan cache, read once per miner. */
  loadFiles(): Map<string, TranscriptFileState>;
  saveFile(state: TranscriptFileState): void;
  keysFor(sessionId: string): { segments: Map<number, number>; legacyKey: string | null };
  alreadyQueued(sessionId: string, toolUseId: string): boolean;
  /** A call queued as `queuedAs` is also `toolUseId` (the id its transcript gives it): dedup and `memtrace show` know it by both. */
  alsoNamed(sessionId: string, queuedAs: string, toolUseId: string, nowMs: number): void;
  /** The session's observer calls are failing (a message waits for a retry): do not add to them. */
  sessionFailing(sessionId: string): boolean;
  /** One transaction: the session row if new, the events (tool_use_id dedup), then the segment keys. */
  commit(input: CommitInput): { queued: number; duplicate: number };
  /** One transaction: segment keys for every segment that exists now, and the legacy key removed. */
  migrateLegacy(input: { sessionId: string; legacyKey: string; segments: Array<{ segment: number; endOffset: number }>; nowMs: number }): boolean;
  /** Session-level mining (the summary request) once every segment is mined; see docs/mining.md. */
  sessionLevel(input: SessionLevelInput): 'queued' | 'not_due' | 'nothing_recovered';
}

export interface SessionInfo {
  cwd: string | null;
  prompt: string | null;
  /** The agent host that wrote the transcript (Claude Code when absent). */
  platform?: string;
}

export interface CommitInput {
  sessionId: string;
  /** Whose segment keys these are: the session's own transcript (its id, the default) or a subagent's. */
  keyId?: string;
  events: MinedEvent[];
  marks: Array<{ segment: number; endOffset: number }>;
  session: SessionInfo;
  nowMs: number;
}

export interface SessionLevelInput {
  sessionId: string;
  segments: number;
  lastAssistantMessage: string | null;
  transcriptPath: string;
  session: SessionInfo;
  nowMs: number;
}

export interface StoreMiningDeps {
  /** A cwd's project and checkout (src/worker/project-of.ts). */
  projectOf: ProjectResolver;
  /**
   * A directory whose sessions are never mined: the observer's own scratch dir (DATA_DIR/observer),
   * where memtrace runs a host CLI as the observer. Its sessions are memtrace's, not the user's.
   */
  excludedCwd?(cwd: string | null): boolean;
  /** Secrets a transcript held, replaced before they were queued (counts only). */
  redacted?(counts: RedactionCounts, nowMs: number): void;
}

export function createStoreMiningStore(store: Store, deps: StoreMiningDeps): MiningStore {
  const mined = createMinedTranscripts(store.db);
  /** What a transcript gives is redacted before the transaction that writes it (docs/secrets-and-retention.md#where-it-runs-before-the-first-write). */
  const clean = <T>(nowMs: number, fn: (counts: RedactionCounts) => T): T => {
    const counts: RedactionCounts = {};
    const value = fn(counts);
    if (totalRedactions(counts) > 0) deps.redacted?.(counts, nowMs);
    return value;
  };
  const cleanSession = (session: SessionInfo, counts: RedactionCounts): SessionInfo => ({
    ...session,
    prompt: session.prompt === null ? null : redactTextInto(session.prompt, counts),
  });

  function ensureSession(sessionId: string, session: SessionInfo, nowMs: number): void {
    if (store.sessions.get(sessionId)) return;
    store.sessions.init({
      sessionId,
      project: deps.projectOf(session.cwd),
      prompt: session.prompt,
      platform: session.platform ?? 'claude-code',
      cwd: session.cwd,
      checkout: deps.projectOf.checkoutOf?.(session.cwd) ?? null,
      nowMs,
    });
  }

  const commitTx = store.db.transaction((input: CommitInput) => {
    let queued = 0;
    let duplicate = 0;
    const perSegment = new Map<number, number>();
    const excluded = deps.excludedCwd?.(input.session.cwd) === true;
    if (input.events.length > 0 && !excluded) ensureSession(input.sessionId, input.session, input.nowMs);
    for (const event of excluded ? [] : input.events) {
      if (deps.excludedCwd?.(typeof event.payload.cwd === 'string' ? event.payload.cwd : null) === true) continue;
      const payload = { ...event.payload, session_id: input.sessionId, at: event.payload.at ?? input.nowMs };
      const result = store.queue.enqueue({
        sessionId: input.sessionId,
        kind: 'observation',
        toolUseId: event.toolUseId,
        ...(event.alsoKnownAs ? { alsoKnownAs: event.alsoKnownAs } : {}),
        payload,
        toolEvent: toolEventRecord(payload),
        observerBytes: () => observerBytes(payload),
        nowMs: input.nowMs,
      });
      if (result.status === 'queued') {
        queued += 1;
        perSegment.set(event.segment, (perSegment.get(event.segment) ?? 0) + 1);
      } else duplicate += 1;
    }
    if (queued > 0) mined.addRecovered(input.sessionId, queued);
    for (const mark of input.marks) {
      mined.markSegment({
        key: segmentKey(input.keyId ?? input.sessionId, mark.segment),
        sessionId: input.keyId ?? input.sessionId,
        segment: mark.segment,
        endOffset: mark.endOffset,
        eventsQueued: perSegment.get(mark.segment) ?? 0,
        nowMs: input.nowMs,
      });
    }
    return { queued, duplicate };
  });

  const migrateTx = store.db.transaction((input: Parameters<MiningStore['migrateLegacy']>[0]) => {
    const now = mined.keysFor(input.sessionId);
    if (now.legacyKey !== input.legacyKey || now.segments.size > 0) return false; // another process migrated it
    for (const s of input.segments) {
      mined.markSegment({
        key: segmentKey(input.sessionId, s.segment),
        sessionId: input.sessionId,
        segment: s.segment,
        endOffset: s.endOffset,
        eventsQueued: 0,
        nowMs: input.nowMs,
      });
    }
    mined.deleteKey(input.legacyKey);
    // Whatever the legacy miner did counts as the session-level run for the segments it covered.
    mined.markSummarized(input.sessionId, input.segments.length, input.nowMs);
    return true;
  });

  const sessionLevelTx = store.db.transaction((input: SessionLevelInput): 'queued' | 'not_due' | 'nothing_recovered' => {
    if (deps.excludedCwd?.(input.session.cwd) === true) return 'not_due';
    const state = mined.session(input.sessionId);
    if (state.recoveredSinceSummary === 0) {
      if (input.segments > state.summarizedSegments) mined.markSummarized(input.sessionId, input.segments, input.nowMs);
      return input.segments > state.summarizedSegments ? 'nothing_recovered' : 'not_due';
    }
    ensureSession(input.sessionId, input.session, input.nowMs);
    store.queue.enqueue({
      sessionId: input.sessionId,
      kind: 'summary',
      toolUseId: null,
      payload: {
        kind: 'stop',
        session_id: input.sessionId,
        last_assistant_message: input.lastAssistantMessage,
        at: input.nowMs,
        source: 'transcript',
        transcript_path: input.transcriptPath,
      },
      observerBytes: observerBytes({ kind: 'stop', session_id: input.sessionId, last_assistant_message: input.lastAssistantMessage, at: input.nowMs }),
      nowMs: input.nowMs,
    });
    mined.markSummarized(input.sessionId, input.segments, input.nowMs);
    return 'queued';
  });

  return {
    loadFiles: () => new Map(mined.files().map((f) => [f.path, f])),
    saveFile: (state) => mined.saveFile(state),
    keysFor: (sessionId) => mined.keysFor(sessionId),
    alreadyQueued: (sessionId, toolUseId) => store.queue.hasSeen(sessionId, toolUseId),
    alsoNamed: (sessionId, queuedAs, toolUseId, nowMs) => {
      store.queue.alsoNamed(sessionId, queuedAs, toolUseId, nowMs);
    },
    sessionFailing: (sessionId) => store.queue.hasRetrying(sessionId),
    commit: (input) =>
      commitTx.immediate(
        clean(input.nowMs, (counts) => ({
          ...input,
          events: input.events.map((e) => ({ ...e, payload: redactValueInto(e.payload, counts) })),
          session: cleanSession(input.session, counts),
        })),
      ),
    migrateLegacy: (input) => migrateTx.immediate(input),
    sessionLevel: (input) =>
      sessionLevelTx.immediate(
        clean(input.nowMs, (counts) => ({
          ...input,
          lastAssistantMessage: input.lastAssistantMessage === null ? null : redactTextInto(input.lastAssistantMessage, counts),
          session: cleanSession(input.session, counts),
        })),
      ),
  };
}
