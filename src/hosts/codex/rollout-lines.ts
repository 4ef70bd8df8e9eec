/**
 * Codex CLI's rollout transcript (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`,
 * AGENT-HOSTS.md §3.6), line by line. Pure. Each line is `{timestamp, ordinal, type, payload}`;
 * what memtrace reads: `event_msg` `item_completed` items (`CommandExecution` with `exit_code`
 * and `status`, keyed by the call id the hooks report as `tool_use_id`; `AgentMessage`),
 * `event_msg` `task_complete` (`last_agent_message`), and `response_item`s (what the model saw:
 * `function_call`, `custom_tool_call` and their outputs, `message`s).
 */
import { isRecord, parseTypedLine } from '../json-line.js';

export interface RolloutLine {
  timestamp: string | null;
  type: string;
  payload: Record<string, unknown>;
}

/** One line, or null when it is not a rollout line (a tail cut mid-line, a blank). */
export function parseRolloutLine(line: string): RolloutLine | null {
  const value = parseTypedLine(line);
  if (!value || !isRecord(value.payload)) return null;
  return { timestamp: typeof value.timestamp === 'string' ? value.timestamp : null, type: value.type, payload: value.payload };
}

/** The item of an `item_completed` event, or null. */
export function completedItem(line: RolloutLine): Record<string, unknown> | null {
  if (line.type !== 'event_msg' || line.payload.type !== 'item_completed' || !isRecord(line.payload.item)) return null;
  return line.payload.item;
}

/** "Process exited with code N" in a shell call's output as the model saw it. */
const PROCESS_EXIT = /^Process exited with code (-?\d+)\s*$/m;

/** A shell call's exit code: its `CommandExecution` item, else the output the model was sent. */
export function exitCodeIn(lines: Iterable<RolloutLine>, callId: string): number | null {
  let fromOutput: number | null = null;
  for (const line of lines) {
    const item = completedItem(line);
    if (item && item.id === callId && item.type === 'CommandExecution' && typeof item.exit_code === 'number') return item.exit_code;
    if (
      line.type === 'response_item' &&
      line.payload.type === 'function_call_output' &&
      line.payload.call_id === callId &&
      typeof line.payload.output === 'string'
    ) {
      const match = PROCESS_EXIT.exec(line.payload.output);
      if (match) fromOutput = Number(match[1]);
    }
  }
  return fromOutput;
}

function itemText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('');
}

/** The agent's last message: the last `task_complete`, or `AgentMessage` item, with text. */
export function lastAgentMessageIn(lines: Iterable<RolloutLine>): string | null {
  let last: string | null = null;
  for (const line of lines) {
    if (
      line.type === 'event_msg' &&
      line.payload.type === 'task_complete' &&
      typeof line.payload.last_agent_message === 'string' &&
      line.payload.last_agent_message !== ''
    ) {
      last = line.payload.last_agent_message;
      continue;
    }
    const item = completedItem(line);
    if (item?.type === 'AgentMessage') {
      const text = itemText(item.content);
      if (text.trim() !== '') last = text;
    }
  }
  return last;
}

/**
 * An id a JSON writer writes byte for byte (no character it could escape): its lines can be found
 * by its bytes before any is parsed.
 */
export const isPlainId = (id: string): boolean => /^[\w.:-]+$/.test(id);

/** Lines of a text (a whole file or a tail), parsed; unparseable ones dropped. */
export function rolloutLines(text: string): RolloutLine[] {
  return parseRolloutLines(text.split('\n'));
}

/** These lines, parsed; unparseable ones dropped. */
export function parseRolloutLines(lines: Iterable<string>): RolloutLine[] {
  const out: RolloutLine[] = [];
  for (const line of lines) {
    const parsed = parseRolloutLine(line);
    if (parsed) out.push(parsed);
  }
  return out;
}
