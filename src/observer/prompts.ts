import type { ObservationType } from '../vocabulary/observation.js';

/** Recorded on every observation and summary (provenance). Bump when the wording changes. */
export const OBSERVER_PROMPT_VERSION = 'obs-v1';

/** Each tool field is capped so one huge tool output cannot crowd out the rest of the call. */
const FIELD_CAP_CHARS = 16_000;

export interface ToolEvent {
  toolName: string;
  toolInput: unknown;
  toolResponse: unknown;
  /** Set when the call failed (PostToolUseFailure): a failing test or build is worth remembering. */
  failure?: { error: string; interrupted: boolean } | null;
  cwd: string | null;
  atMs: number;
  /** Set when a subagent (not the main agent) made the call. */
  subagent?: { id: string | null; type: string | null } | null;
}

export interface SessionContext {
  project: string | null;
  userPrompt: string | null;
}

export interface Prompt {
  system: string;
  messages: Array<{ role: 'user'; content: string }>;
}

const OBSERVATION_SYSTEM = `You are memtrace's observer. You watch one tool call a coding agent made and record what is worth remembering for future sessions on this project.

Reply ONLY with zero or more XML blocks of this form, nothing else:
<observation type="bugfix|feature|refactor|change|discovery|decision|security|other">
  <title>short title</title>
  <subtitle>one sentence</subtitle>
  <narrative>what happened and why it matters</narrative>
  <facts><fact>one concrete fact</fact></facts>
  <concepts><concept>how-it-works|problem-solution|gotcha|pattern|trade-off</concept></concepts>
  <files_read><file>path</file></files_read>
  <files_modified><file>path</file></files_modified>
</observation>
If the call is routine and teaches nothing, reply with nothing at all. Never invent commit hashes or files.`;

const SUMMARY_SYSTEM = `You are memtrace's observer. Summarize the coding session so far for future sessions on this project.

Reply ONLY with one block:
<summary><request>what the user asked</request><investigated>what was looked at</investigated><learned>what was learned</learned><completed>what was done</completed><next_steps>what remains</next_steps><notes>anything else</notes></summary>
or, when there is nothing worth summarizing, <skip_summary reason="why"/>. Never invent commit hashes or files.`;

export function buildObservationPrompt(event: ToolEvent, session: SessionContext): Prompt {
  const content = [
    sessionHeader(session),
    `<tool_call>`,
    `tool: ${capField(event.toolName, 256)}`,
    ...(event.subagent
      ? [`subagent: ${capField(event.subagent.type ?? 'unnamed', 128)}${event.subagent.id ? ` (${capField(event.subagent.id, 256)})` : ''}`]
      : []),
    `time: ${new Date(event.atMs).toISOString()}`,
    `cwd: ${capField(event.cwd ?? 'unknown', FIELD_CAP_CHARS)}`,
    `input:\n${capField(asText(event.toolInput), FIELD_CAP_CHARS)}`,
    event.failure
      ? `result: FAILED${event.failure.interrupted ? ' (interrupted by the user)' : ''}\nerror:\n${capField(event.failure.error, FIELD_CAP_CHARS)}`
      : `output:\n${capField(asText(event.toolResponse), FIELD_CAP_CHARS)}`,
    `</tool_call>`,
  ].join('\n');
  return { system: OBSERVATION_SYSTEM, messages: [{ role: 'user', content }] };
}

export function buildSummaryPrompt(
  input: { lastAssistantMessage: string | null; recentObservations: ReadonlyArray<{ type: ObservationType; title: string }> },
  session: SessionContext,
): Prompt {
  const observed = input.recentObservations.length
    ? input.recentObservations.map((o) => `- [${o.type}] ${capField(o.title, 300)}`).join('\n')
    : '- (none recorded)';
  const content = [
    sessionHeader(session),
    `observations recorded this session:\n${observed}`,
    `agent's last message:\n${capField(input.lastAssistantMessage ?? '(not available)', FIELD_CAP_CHARS)}`,
  ].join('\n\n');
  return { system: SUMMARY_SYSTEM, messages: [{ role: 'user', content }] };
}

function sessionHeader(session: SessionContext): string {
  return `project: ${capField(session.project ?? 'unknown', 512)}\nuser request: ${capField(session.userPrompt ?? '(not available)', 4_000)}`;
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Keeps the head and the tail (the start of a file and the end of a log both matter) with a
 * marker saying how much was cut. Counts code points, so a surrogate pair is never split.
 */
export function capField(text: string, max = FIELD_CAP_CHARS): string {
  if (text.length <= max) return text;
  const points = Array.from(text);
  if (points.length <= max) return text;
  const marker = (n: number) => `\n…[elided ${n} characters]…\n`;
  const budget = Math.max(0, max - marker(points.length).length);
  const head = Math.ceil(budget / 2);
  const tail = budget - head;
  const elided = points.length - head - tail;
  return `${points.slice(0, head).join('')}${marker(elided)}${tail > 0 ? points.slice(points.length - tail).join('') : ''}`;
}
