import type { HookEvent, HookEventKind } from './hook-event.js';
import type { HostName } from './platforms.js';

/**
 * One agent host's hook payloads → memtrace's events. Pure: what an adapter must read from disk
 * (a transcript, to find a final message or an exit code) comes in through `AdapterDeps`.
 */
export interface HostAdapter {
  host: HostName;
  /** The hook names this host's hooks are invoked with, memtrace's own (`post-tool-use`) and the host's (`AfterTool`). */
  readonly eventNames: readonly string[];
  /**
   * The events whose hooks the agent waits for, as `memtrace install` sets them up for this host
   * (the rest run in the background): what memtrace's share of the agent's time is made of.
   */
  readonly blocking: ReadonlySet<HookEventKind>;
  /** Which of memtrace's six events a hook name stands for, or null when memtrace does not handle it. */
  kindOf(eventName: string): HookEventKind | null;
  /** The event a payload describes. Validation of field bounds happens after (hook-event.ts). */
  toEvent(eventName: string, payload: Record<string, unknown>, deps: AdapterDeps): AdaptResult;
  /** What the hook prints at session start so that the host's model reads the context. */
  contextOutput(markdown: string): string;
  /**
   * A host whose context output differs from the others' (Copilot CLI) keeps its own copy of the
   * context file a start without a worker prints (`session-start.<variant>.json`); absent, the shared one.
   */
  readonly contextVariant?: string;
  /** How the host's own event names look (PascalCase unless given): a name of that form memtrace does not handle is read and ignored, not refused. */
  readonly hostEventName?: RegExp;
}

/** A hook's name in memtrace's words, in the host's words, and the event kind both stand for. */
export type EventNameRow = readonly [ours: string, theirs: string, kind: HookEventKind];

/** A host's event-name table as an adapter exposes it: every name it is invoked with, and the kind of each. */
export function eventNameTable(rows: readonly EventNameRow[]): Pick<HostAdapter, 'eventNames' | 'kindOf'> {
  const kinds = new Map<string, HookEventKind>();
  for (const [ours, theirs, kind] of rows) {
    kinds.set(ours, kind);
    kinds.set(theirs, kind);
  }
  return { eventNames: rows.flatMap(([ours, theirs]) => [ours, theirs]), kindOf: (name) => kinds.get(name) ?? null };
}

export type AdaptResult =
  | { ok: true; event: HookEvent }
  /** A payload memtrace has nothing to do with (a host event it does not handle). */
  | { ok: true; event: null; ignored: string }
  | { ok: false; reason: string };

export interface AdapterDeps {
  /** The last assistant message of a transcript, for hosts whose Stop may not carry it. */
  lastAssistantText?(transcriptPath: string): string | null;
  /** A shell call's exit code from the host's transcript, for hosts whose payload lacks it. */
  exitCodeOf?(transcriptPath: string, toolUseId: string): number | null;
  /** The transcript's latest model turn, for hosts whose tool payloads carry no call id (Gemini). */
  lastModelTurn?(transcriptPath: string): ModelTurn | null;
  /**
   * For hosts whose Stop comes before their transcript holds the turn's final text (Copilot CLI):
   * that text once written (`{text: null}` for a turn that ended without any), null while it is not.
   * The worker holds such a Stop's summary request while it reads this.
   */
  turnFinalText?(transcriptPath: string, promptId: string): { text: string | null } | null;
}

/** A model turn as a transcript records it: its own id and time, and the tool calls it made (if written yet). */
export interface ModelTurn {
  id: string;
  timestamp: string | null;
  toolCalls: ReadonlyArray<{ id: string; name: string; args: unknown }>;
}

/** The JSON every host in HOSTS reads as session-start context (Claude Code, Gemini CLI and Codex alike). */
export function sessionStartContextJson(markdown: string): string {
  return `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: markdown } })}\n`;
}

export const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
export const wholeMs = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : null);

/** Only defined values: an absent field stays absent rather than becoming null noise. */
export function definedFields<T extends Record<string, unknown>>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== null && v !== undefined)) as T;
}
