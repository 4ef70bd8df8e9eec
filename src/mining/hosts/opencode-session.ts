import { isObject, openCodePrompt, openCodeToolFailure } from '../../hosts/opencode/tool-part.js';
import type { HostCall, HostTranscript } from './mined-call.js';

/** A `part` row of OpenCode's store, and the message role it belongs to. */
export interface OpenCodePartRow {
  id: string;
  messageId: string;
  sessionId: string;
  /** `user` or `assistant`, from its message (null when the message row is missing). */
  role: string | null;
  timeCreated: number | null;
  data: string;
}

/**
 * One OpenCode session in its SQLite store (AGENT-HOSTS-2.md §2.6) → the tool calls its plugin
 * would have delivered. Pure. A call is a `tool` part in state `completed` or `error` (a part
 * still `pending` or `running` had not finished when the session ended or was killed); its
 * event is the plugin's: `{title, output, metadata}` (or `{error, …}`) as the response, a
 * failure when it errored or a bash call exited non-zero. Parts of a child session (a subagent
 * the task tool ran) are the parent's calls, named with the child session as the agent.
 * The prompt is the first user message's own text (memtrace's synthetic context part left out).
 */
export function readOpenCodeSession(session: { id: string; directory: string | null }, parts: readonly OpenCodePartRow[]): HostTranscript {
  const calls: HostCall[] = [];
  const seen = new Set<string>();
  let prompt: string | null = null;
  let promptMessage: string | null = null;
  const userTexts: Record<string, unknown>[] = [];
  const lastText = { messageId: '', texts: [] as string[] };
  for (const row of parts) {
    let part: unknown;
    try {
      part = JSON.parse(row.data);
    } catch {
      continue;
    }
    if (!isObject(part)) continue;
    if (part.type === 'text' && row.sessionId === session.id) {
      if (row.role === 'user' && (promptMessage === null || promptMessage === row.messageId)) {
        promptMessage = row.messageId;
        userTexts.push(part);
      } else if (row.role === 'assistant' && part.synthetic !== true && typeof part.text === 'string' && part.text.trim() !== '') {
        if (lastText.messageId !== row.messageId) Object.assign(lastText, { messageId: row.messageId, texts: [] });
        lastText.texts.push(part.text.trim());
      }
      continue;
    }
    if (part.type !== 'tool' || typeof part.tool !== 'string' || typeof part.callID !== 'string' || seen.has(part.callID)) continue;
    const state = isObject(part.state) ? part.state : {};
    if (state.status !== 'completed' && state.status !== 'error') continue;
    seen.add(part.callID);
    const time = isObject(state.time) ? state.time : {};
    const at = typeof time.end === 'number' ? time.end : row.timeCreated;
    calls.push({
      toolUseId: part.callID,
      alsoKnownAs: [],
      toolName: part.tool,
      toolInput: state.input ?? null,
      toolResponse:
        state.status === 'error'
          ? definedOnly({ error: state.error, output: state.output, metadata: state.metadata })
          : definedOnly({ title: state.title, output: state.output, metadata: state.metadata }),
      failure: openCodeToolFailure(part.tool, state),
      atMs: typeof at === 'number' && Number.isFinite(at) ? at : null,
      agentId: row.sessionId === session.id ? null : row.sessionId,
    });
  }
  prompt = openCodePrompt(userTexts);
  return { sessionId: session.id, calls, prompt, cwd: session.directory, lastAssistantText: lastText.texts.length > 0 ? lastText.texts.join('\n') : null };
}

function definedOnly(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined && v !== null));
}
