import type { ObservationType } from '../vocabulary/observation.js';
import { headTail, renderEvent, type EventView } from './event-render.js';
import { LAST_MESSAGE_CHARS } from './event-view.js';

/** Recorded on every observation and summary (provenance). Bump when the wording changes. */
export const OBSERVER_PROMPT_VERSION = 'obs-v2-turn';

export interface SessionContext {
  project: string | null;
  userPrompt: string | null;
}

/** One agent turn's worth of queued events, in order: tool events, then the turn's end if it came. */
export interface TurnBatch {
  events: EventView[];
  /** Present when the batch ends with the turn (a Stop, or the session's end): a summary is asked for. */
  turnEnd: { lastAssistantMessage: string | null; recentObservations: ReadonlyArray<{ type: ObservationType; title: string }> } | null;
}

export interface Prompt {
  system: string;
  messages: Array<{ role: 'user'; content: string }>;
}

/**
 * The stable prefix of every observer call: the same text for every batch of every session, so a
 * provider with prompt caching reads it from its cache (Anthropic: `cache_control` on it).
 */
export const OBSERVER_SYSTEM = `You are memtrace's observer. You watch the tool calls a coding agent made during one turn of its work and record what is worth remembering for future sessions on this project.

The user message holds the project, the user's request, and the turn's tool calls as <event id="eN"> blocks (a file read shows only its path and lines: the file is in the repository; an edit shows its diff; long outputs keep their head and tail). It may end with <turn_end>, the agent's last message.

Reply ONLY with XML blocks, nothing else:
- zero or more observations, one per thing worth remembering (a bug and its fix, a decision, how something works, a gotcha), each naming the events it came from:
<observation type="bugfix|feature|refactor|change|discovery|decision|security|other">
  <title>short title</title>
  <subtitle>one sentence</subtitle>
  <narrative>what happened and why it matters</narrative>
  <facts><fact>one concrete fact</fact></facts>
  <concepts><concept>how-it-works|problem-solution|gotcha|pattern|trade-off</concept></concepts>
  <files_read><file>path</file></files_read>
  <files_modified><file>path</file></files_modified>
  <sources><event>e1</event></sources>
</observation>
- when the message ends with <turn_end>, also exactly one summary of the session so far:
<summary><request>what the user asked</request><investigated>what was looked at</investigated><learned>what was learned</learned><completed>what was done</completed><next_steps>what remains</next_steps><notes>anything else</notes></summary>
  or <skip_summary reason="why"/> when there is nothing worth summarizing.
Routine calls that teach nothing get no observation; a turn of routine calls gets an empty reply. Never invent commit hashes or files.`;

/** Each event's reference in the prompt, in batch order: `e1`, `e2`, … (observations name them in <sources>). */
export function eventRef(index: number): string {
  return `e${index + 1}`;
}

export function buildBatchPrompt(batch: TurnBatch, session: SessionContext): Prompt {
  const parts = [sessionHeader(session)];
  if (batch.events.length > 0) parts.push(`<events>\n${batch.events.map((e, i) => renderEvent(e, eventRef(i))).join('\n')}\n</events>`);
  else parts.push('<events/>');
  if (batch.turnEnd) {
    const observed = batch.turnEnd.recentObservations.length
      ? batch.turnEnd.recentObservations.map((o) => `- [${o.type}] ${oneLine(o.title, 200)}`).join('\n')
      : '- (none yet)';
    parts.push(
      `<turn_end>\nagent's last message:\n${headTail(batch.turnEnd.lastAssistantMessage ?? '(not available)', LAST_MESSAGE_CHARS)}\n\nobservations recorded earlier this session:\n${observed}\n</turn_end>`,
    );
  }
  return { system: OBSERVER_SYSTEM, messages: [{ role: 'user', content: parts.join('\n\n') }] };
}

function sessionHeader(session: SessionContext): string {
  return `project: ${oneLine(session.project ?? 'unknown', 512)}\nuser request: ${headTail(session.userPrompt ?? '(not available)', 4_000)}`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
