import { findInFileTail } from '../file-tail.js';
import { isObject, piContentText } from './tool-result.js';

/**
 * pi's session file (`~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl`, AGENT-HOSTS-2.md
 * §4.5), JSONL version 3: a `session` header `{id, cwd, timestamp}`, then entries `{type, id,
 * parentId, timestamp, …}`; a `message` entry holds `{message: {role, content, …}}` (user,
 * assistant with `toolCall` blocks, toolResult `{toolCallId, toolName, content, details,
 * isError}`); extensions add `custom_message` entries (memtrace's context among them).
 */
export interface PiEntry {
  type: string;
  id: string | null;
  timestamp: string | null;
  /** The header's fields, or a `message` entry's message. */
  body: Record<string, unknown>;
}

/** One line as an entry, or null when it does not parse (a line cut by a tail read, or garbage). */
export function parsePiLine(line: string): PiEntry | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isObject(value) || typeof value.type !== 'string') return null;
  const body = value.type === 'message' ? (isObject(value.message) ? value.message : {}) : value;
  return {
    type: value.type,
    id: typeof value.id === 'string' ? value.id : null,
    timestamp: typeof value.timestamp === 'string' ? value.timestamp : null,
    body,
  };
}

/** The last assistant message that said something, in these entries (the text of its text blocks). */
export function lastPiAssistantText(entries: readonly PiEntry[]): string | null {
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const entry = entries[i]!;
    if (entry.type !== 'message' || entry.body.role !== 'assistant') continue;
    const said = piContentText(entry.body.content).trim();
    if (said !== '') return said;
  }
  return null;
}

const entriesOf = (text: string) =>
  text
    .split('\n')
    .map(parsePiLine)
    .filter((e): e is PiEntry => e !== null);

/** The session's last assistant text, read from the file's tail. */
export function readLastPiAssistantText(sessionFile: string): string | null {
  return findInFileTail(sessionFile, (tail) => lastPiAssistantText(entriesOf(tail)));
}
