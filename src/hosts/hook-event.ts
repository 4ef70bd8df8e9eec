import { z } from 'zod';

/**
 * The one contract for an agent's hook events. Every host adapter produces these, the worker's
 * HTTP API validates its bodies into them once, and everything after the edge (queue, observer,
 * mining) receives them typed. The six kinds are Claude Code's six events; hosts without one of
 * them (a separate failure event) derive it in their adapter.
 *
 * Field names are the wire names of the HTTP API (docs/interfaces.md), so a body is an event
 * without its `kind`. Unknown extra fields are ignored: hosts add fields over time.
 */

export const HOOK_EVENT_KINDS = ['session_start', 'user_prompt_submit', 'post_tool_use', 'post_tool_use_failure', 'stop', 'session_end'] as const;
export type HookEventKind = (typeof HOOK_EVENT_KINDS)[number];

/** Longest prompt, error or final message kept as text; larger ones are refused at the HTTP edge. */
export const MAX_EVENT_TEXT = 200_000;

const id = z.string().trim().min(1, 'must not be empty').max(256, 'must be at most 256 characters');
const optionalText = (max: number) => z.string().max(max, `must be at most ${max} characters`).nullish();
const path = optionalText(4096);
const durationMs = z.number().int('must be a whole number').min(0).max(86_400_000).nullish();
/** Any JSON value, but present. */
const presentJson = z.custom<unknown>((value) => value !== undefined, { message: 'is required' });

const common = {
  session_id: id,
  cwd: path,
  transcript_path: path,
  /** The host that sent it (hosts/platforms.ts); free text on the wire, the closed enum when stored. */
  platform: optionalText(64),
};

export const sessionStartFields = z.object({ ...common, project: optionalText(4096), source: optionalText(32), model: optionalText(128) });
export const userPromptFields = z.object({ ...common, project: optionalText(4096), prompt: optionalText(MAX_EVENT_TEXT), prompt_id: id.nullish() });

const toolCommon = {
  ...common,
  tool_use_id: id.nullish(),
  tool_name: id,
  tool_input: presentJson,
  duration_ms: durationMs,
  /** Set when a subagent made the call (Claude Code: its id and type, e.g. `Explore`). */
  agent_id: id.nullish(),
  agent_type: optionalText(128),
  prompt_id: id.nullish(),
};
export const toolUseFields = z.object({ ...toolCommon, tool_response: presentJson });
export const toolFailureFields = z.object({
  ...toolCommon,
  /** Some hosts report a failure with the output it produced (Gemini, Codex). */
  tool_response: z.unknown().optional(),
  error: z.string().max(MAX_EVENT_TEXT, `must be at most ${MAX_EVENT_TEXT} characters`),
  exit_code: z.number().int().min(-1_000_000).max(1_000_000).nullish(),
  is_interrupt: z.boolean().nullish(),
});
export const stopFields = z.object({ ...common, last_assistant_message: optionalText(MAX_EVENT_TEXT), prompt_id: id.nullish() });
export const sessionEndFields = z.object({ ...common, reason: optionalText(64) });

export type SessionStartEvent = { kind: 'session_start' } & z.infer<typeof sessionStartFields>;
export type UserPromptEvent = { kind: 'user_prompt_submit' } & z.infer<typeof userPromptFields>;
export type ToolUseEvent = { kind: 'post_tool_use' } & z.infer<typeof toolUseFields>;
export type ToolFailureEvent = { kind: 'post_tool_use_failure' } & z.infer<typeof toolFailureFields>;
export type StopEvent = { kind: 'stop' } & z.infer<typeof stopFields>;
export type SessionEndEvent = { kind: 'session_end' } & z.infer<typeof sessionEndFields>;

export type ToolEvent = ToolUseEvent | ToolFailureEvent;
export type HookEvent = SessionStartEvent | UserPromptEvent | ToolEvent | StopEvent | SessionEndEvent;

/** Each kind's fields, for validating a host payload or an HTTP body into an event. */
const EVENT_FIELDS = {
  session_start: sessionStartFields,
  user_prompt_submit: userPromptFields,
  post_tool_use: toolUseFields,
  post_tool_use_failure: toolFailureFields,
  stop: stopFields,
  session_end: sessionEndFields,
} as const satisfies Record<HookEventKind, z.ZodTypeAny>;

export type EventParse = { ok: true; event: HookEvent } | { ok: false; issues: z.ZodIssue[] };

/** Validates fields as an event of the given kind. */
export function parseEvent(kind: HookEventKind, fields: unknown): EventParse {
  const parsed = EVENT_FIELDS[kind].safeParse(fields);
  return parsed.success ? { ok: true, event: { kind, ...parsed.data } as HookEvent } : { ok: false, issues: parsed.error.issues };
}

export function isToolEvent(event: HookEvent): event is ToolEvent {
  return event.kind === 'post_tool_use' || event.kind === 'post_tool_use_failure';
}

/**
 * What the queue holds for the observer: a tool event or a summary request (a Stop), with the
 * time the worker received it. `source` says where a summary request came from when it was not
 * a hook (session end, transcript catch-up).
 */
export type QueuedEvent = (ToolEvent | StopEvent) & { at: number; source?: 'hook' | 'session_end' | 'transcript' };
