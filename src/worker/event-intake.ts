import { isToolEvent, platformOf, type HookEvent, type Platform, type QueuedEvent } from '../hosts/index.js';
import { toolEventRecord } from '../observer/tool-evidence.js';
import type { ProjectResolver } from '../repository/project-resolver.js';
import { observerBytes } from '../observer/event-view.js';
import type { Store } from '../store/index.js';
import type { QueuedHead } from './loop-types.js';
import type { StopTextResolver } from './stop-text.js';

export type Accepted = { status: 'ok' } | { status: 'unknown_session' } | { status: 'ignored' } | { status: 'queued' | 'duplicate'; id: number };

export interface IntakeDeps {
  store: Store;
  /** A cwd's project (its repository) and checkout (src/worker/project-of.ts). */
  projectOf: ProjectResolver;
  /** Runs a store write, reporting a full disk to the loop (and its recovery). */
  write<T>(fn: () => T): T;
  /** A message was queued for the session (this one): the observer loop should look. */
  wake(sessionId: string, queued: QueuedHead): void;
  /** A hook reported the session's transcript (watched for what the hooks miss). */
  onTranscript?(sessionId: string, transcriptPath: string): void;
  /** A session ended: its rollup is due, and what its transcript holds beyond the hooks may be mined. */
  sessionEnded(sessionId: string, transcriptPath: string | null): void;
  /**
   * A turn ended (Stop, which hosts wait for): its background tool hooks may yet be killed at the
   * agent's exit, so the transcript is read for what they miss a little later.
   */
  turnEnded?(sessionId: string, transcriptPath: string): void;
  /** The transcript's last assistant message (read as its host writes it), for a session whose last summary request never came. */
  lastAssistantText(transcriptPath: string | null, platform: Platform): string | null;
  /** Every event with its secrets replaced, before any write; and text read from a transcript. */
  redactEvent<T extends HookEvent>(event: T, nowMs: number): T;
  redactText(text: string, nowMs: number): string;
  /**
   * A working directory whose events are never taken: the observer's own scratch dir. Its host CLI
   * runs with hooks off and the MEMTRACE_OBSERVER_SESSION marker; this catches any hook that still
   * fires (an http hook, a host that ignored the switch), so the observer never observes itself.
   */
  excludedCwd?(cwd: string | null): boolean;
  /** Stops whose final text their host writes after the hook (Copilot): held while the worker reads it (stop-text.ts). */
  stopText?: Pick<StopTextResolver, 'holdMsFor' | 'held'>;
}

/**
 * The worker's side of every hook event, whichever host or route it came through: sessions,
 * prompts, the durable queue (committed before this returns) and the loop's wake-ups.
 */
export function createEventIntake(deps: IntakeDeps) {
  const { store, write } = deps;

  const ensureSession = (event: HookEvent, nowMs: number) => {
    if (store.sessions.exists(event.session_id)) return;
    // An event that does not name its host leaves the platform for a later one to fill.
    store.sessions.init({
      sessionId: event.session_id,
      project: deps.projectOf(event.cwd),
      platform: event.platform ? platformOf(event.platform) : null,
      cwd: event.cwd ?? null,
      checkout: deps.projectOf.checkoutOf?.(event.cwd) ?? null,
      transcriptPath: event.transcript_path ?? null,
      nowMs,
    });
  };

  const enqueue = (event: QueuedEvent, dedupKey: string | null, nowMs: number, notBefore?: number): Accepted => {
    const kind = isToolEvent(event) ? 'observation' : 'summary';
    let bytes = 0;
    const result = write(() => {
      ensureSession(event, nowMs);
      return store.queue.enqueue({
        sessionId: event.session_id,
        kind,
        toolUseId: dedupKey,
        payload: event,
        toolEvent: isToolEvent(event) ? toolEventRecord(event) : null,
        observerBytes: () => {
          bytes = observerBytes(event);
          return bytes;
        },
        ...(notBefore === undefined ? {} : { notBefore }),
        nowMs,
      });
    });
    if (result.status === 'queued') deps.wake(event.session_id, { id: result.id, kind, notBefore: notBefore ?? 0, createdAt: nowMs, bytes });
    return result;
  };

  /**
   * A background Stop hook may be cut off when the agent exits, so the last turn's summary
   * request may never arrive. At session end, if the latest prompt has none, one is queued from
   * the transcript's last assistant message (Stop's dedup key, so a late Stop is a duplicate).
   */
  const queueMissingSummary = (sessionId: string, nowMs: number) => {
    const prompt = store.sessions.prompts(sessionId).at(-1);
    if (!prompt?.prompt_id || store.queue.hasSeen(sessionId, summaryKey(prompt.prompt_id))) return;
    const session = store.sessions.get(sessionId);
    const transcriptPath = session?.transcriptPath ?? null;
    const raw = deps.lastAssistantText(transcriptPath, platformOf(session?.platform));
    if (!raw) return;
    const last = deps.redactText(raw, nowMs);
    enqueue(
      {
        kind: 'stop',
        session_id: sessionId,
        last_assistant_message: last,
        prompt_id: prompt.prompt_id,
        transcript_path: transcriptPath,
        source: 'session_end',
        at: nowMs,
      },
      summaryKey(prompt.prompt_id),
      nowMs,
    );
  };

  return {
    accept(received: HookEvent, nowMs: number): Accepted {
      if (deps.excludedCwd?.(received.cwd ?? null) === true) return { status: 'ignored' };
      const event = deps.redactEvent(received, nowMs);
      if (event.transcript_path) deps.onTranscript?.(event.session_id, event.transcript_path);
      switch (event.kind) {
        case 'session_start':
        case 'user_prompt_submit': {
          const prompt = event.kind === 'user_prompt_submit' ? event : null;
          write(() =>
            store.sessions.init({
              sessionId: event.session_id,
              project: event.project ?? deps.projectOf(event.cwd),
              prompt: prompt?.prompt ?? null,
              promptId: prompt?.prompt_id ?? null,
              platform: event.platform ? platformOf(event.platform) : null,
              cwd: event.cwd ?? null,
              checkout: deps.projectOf.checkoutOf?.(event.cwd) ?? null,
              transcriptPath: event.transcript_path ?? null,
              source: event.kind === 'session_start' ? (event.source ?? null) : null,
              nowMs,
            }),
          );
          return { status: 'ok' };
        }
        case 'post_tool_use':
        case 'post_tool_use_failure':
          return enqueue({ ...event, at: nowMs }, event.tool_use_id ?? null, nowMs);
        case 'stop': {
          const session = store.sessions.get(event.session_id);
          // Copilot names its transcript in its Stop alone: the session keeps it for mining at its end.
          if (event.transcript_path && session && session.transcriptPath !== event.transcript_path)
            write(() => store.sessions.init({ sessionId: event.session_id, transcriptPath: event.transcript_path, nowMs }));
          const transcriptPath = event.transcript_path ?? session?.transcriptPath ?? null;
          if (transcriptPath) deps.turnEnded?.(event.session_id, transcriptPath);
          const queued = { ...event, at: nowMs };
          const holdMs = deps.stopText?.holdMsFor(queued) ?? null;
          // One summary per prompt: a Stop replayed from the spool is the same Stop.
          const accepted = enqueue(queued, event.prompt_id ? summaryKey(event.prompt_id) : null, nowMs, holdMs === null ? undefined : nowMs + holdMs);
          if (holdMs !== null && accepted.status === 'queued') deps.stopText?.held(accepted.id, queued, nowMs);
          return accepted;
        }
        case 'session_end': {
          const known = write(() =>
            store.sessions.end(event.session_id, nowMs, { reason: event.reason ?? null, transcriptPath: event.transcript_path ?? null }),
          );
          if (!known) return { status: 'unknown_session' };
          queueMissingSummary(event.session_id, nowMs);
          deps.sessionEnded(event.session_id, event.transcript_path ?? store.sessions.get(event.session_id)?.transcriptPath ?? null);
          return { status: 'ok' };
        }
      }
    },
    queueMissingSummary,
  };
}

const summaryKey = (promptId: string) => `summary:${promptId}`;
