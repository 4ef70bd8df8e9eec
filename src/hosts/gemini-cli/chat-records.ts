/**
 * Gemini CLI's chat file (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, AGENT-HOSTS.md §2.6)
 * read into its messages. Pure. The file is append-only JSONL: a metadata line
 * (`sessionId`, `projectHash`, …), message records (`id`, `timestamp`, `type: user|gemini`,
 * `content`, `toolCalls?`) and patch lines (`{"$set": {…}}`). A record whose `id` was seen
 * before replaces it (a model turn is written first without, then with its `toolCalls`);
 * `$set.messages` carries whole records. Lines that do not parse (a tail cut mid-line) are skipped.
 */
export interface ChatToolCall {
  id: string;
  name: string;
  args: unknown;
  /** The function responses sent back to the model. */
  result: unknown;
  /** `success`, `error`, `cancelled`, … */
  status: string | null;
  timestamp: string | null;
  resultDisplay: unknown;
}

export interface ChatRecord {
  id: string;
  type: string;
  timestamp: string | null;
  /** The record's text (a model's answer, a user's prompt); '' when it has none. */
  text: string;
  toolCalls: ChatToolCall[];
}

export interface ChatFile {
  sessionId: string | null;
  /** Latest version of each record, in the order records first appeared. */
  records: ChatRecord[];
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { text: string } => isObject(part) && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

function toolCallsOf(value: unknown): ChatToolCall[] {
  if (!Array.isArray(value)) return [];
  const calls: ChatToolCall[] = [];
  for (const call of value) {
    if (!isObject(call)) continue;
    const id = str(call.id);
    const name = str(call.name);
    if (id === null || name === null) continue;
    calls.push({
      id,
      name,
      args: call.args ?? null,
      result: call.result ?? null,
      status: str(call.status),
      timestamp: str(call.timestamp),
      resultDisplay: call.resultDisplay ?? null,
    });
  }
  return calls;
}

function toRecord(value: Record<string, unknown>): ChatRecord | null {
  const id = str(value.id);
  const type = str(value.type);
  if (id === null || type === null) return null;
  return { id, type, timestamp: str(value.timestamp), text: textOf(value.content), toolCalls: toolCallsOf(value.toolCalls) };
}

/** The messages of a chat file (or of a tail of one). */
export function readChatLines(lines: Iterable<string>): ChatFile {
  let sessionId: string | null = null;
  const byId = new Map<string, ChatRecord>();
  const put = (value: unknown) => {
    if (!isObject(value)) return;
    const record = toRecord(value);
    if (record === null) return;
    // Map.set on an existing key keeps its first position: a rewrite replaces the record in place.
    byId.set(record.id, record);
  };
  for (const line of lines) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) continue;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      continue;
    }
    if (!isObject(value)) continue;
    if (isObject(value.$set)) {
      const messages = value.$set.messages;
      if (Array.isArray(messages)) for (const message of messages) put(message);
      continue;
    }
    if (sessionId === null && typeof value.sessionId === 'string' && value.type === undefined) {
      sessionId = value.sessionId;
      continue;
    }
    put(value);
  }
  return { sessionId, records: [...byId.values()] };
}

/** The latest model turn (`type: "gemini"`): the one whose tool calls are running when a tool hook fires. */
export function lastModelRecord(file: ChatFile): ChatRecord | null {
  for (let i = file.records.length - 1; i >= 0; i -= 1) if (file.records[i]!.type === 'gemini') return file.records[i]!;
  return null;
}

/** The model's last answer with text. */
export function lastModelText(file: ChatFile): string | null {
  for (let i = file.records.length - 1; i >= 0; i -= 1) {
    const record = file.records[i]!;
    if (record.type === 'gemini' && record.text.trim() !== '') return record.text;
  }
  return null;
}
