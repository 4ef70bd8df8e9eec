import { canonicalJson } from '../call-hash.js';
import { isRecord, parseTypedLine } from '../json-line.js';
import { copilotToolUseId } from './call-ids.js';

/**
 * Copilot CLI's session log, `$COPILOT_HOME/session-state/<session id>/events.jsonl` (AGENT-HOSTS-2.md
 * §3.6), read into what memtrace needs. Pure. Each line is `{type, data, id, timestamp, parentId}`:
 * `session.start` {sessionId, context.cwd}, `user.message` {content}, `assistant.message`
 * {content, toolRequests}, `tool.execution_start` {toolCallId, toolName, arguments},
 * `tool.execution_complete` {toolCallId, success, result.content, error{message,code},
 * shellExecution.exitCode}, `hook.start` {hookType, input: the hook's own stdin}, `session.shutdown`.
 * Copilot writes the file in batches (often only at exit), so a read may see a prefix of the
 * session; lines that do not parse (a tail cut mid-line) are skipped, unknown types ignored.
 */
export interface CopilotCallRecord {
  toolCallId: string;
  toolName: string;
  args: unknown;
  startedAt: string | null;
  /** What Copilot recorded when the call finished; null while it runs (or when the log was cut). */
  complete: { success: boolean; content: string | null; error: string | null; exitCode: number | null } | null;
  /** The provisional id memtrace's postToolUse(Failure) hook gave this call (its `hook.start` input), when a hook ran. */
  hookId: string | null;
}

export interface CopilotEventsLog {
  sessionId: string | null;
  cwd: string | null;
  /** The user's prompts, in order. */
  prompts: string[];
  /** Calls in the order they started. */
  calls: CopilotCallRecord[];
  /**
   * Each agentStop hook's timestamp → the final message of the turn it ended (null: the turn ended
   * without text). Only turns whose prompt is in the lines read: a tail cut mid-turn tells none.
   */
  stopTexts: Map<number, string | null>;
  /** The last assistant message with text. */
  lastAssistantText: string | null;
  /** The log holds `session.shutdown`: Copilot has written all of it. */
  shutdown: boolean;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** One line as `{type, data, timestamp}`, or null. */
function parseLine(line: string): { type: string; data: Record<string, unknown>; timestamp: string | null } | null {
  const value = parseTypedLine(line);
  return value && { type: value.type, data: isRecord(value.data) ? value.data : {}, timestamp: str(value.timestamp) };
}

function completion(data: Record<string, unknown>): NonNullable<CopilotCallRecord['complete']> {
  const result = isRecord(data.result) ? data.result : null;
  const error = isRecord(data.error) ? str(data.error.message) : str(data.error);
  const shell = isRecord(data.shellExecution) ? data.shellExecution : null;
  return {
    success: data.success !== false,
    content: result ? str(result.content) : null,
    error,
    exitCode: shell && typeof shell.exitCode === 'number' ? shell.exitCode : null,
  };
}

export function readEventsLog(lines: Iterable<string>): CopilotEventsLog {
  const log: CopilotEventsLog = { sessionId: null, cwd: null, prompts: [], calls: [], stopTexts: new Map(), lastAssistantText: null, shutdown: false };
  const byId = new Map<string, CopilotCallRecord>();
  /** Calls started and not yet complete: where a tool hook's call is. */
  const open: CopilotCallRecord[] = [];
  /**
   * The current turn's latest text: reset by each prompt, so a turn without text ends with none.
   * Undefined until a prompt is read: a tail that starts mid-turn cannot tell a turn's text.
   */
  let turnText: string | null | undefined;
  for (const line of lines) {
    const record = parseLine(line);
    if (!record) continue;
    const { data } = record;
    switch (record.type) {
      case 'session.start':
        log.sessionId ??= str(data.sessionId);
        log.cwd ??= isRecord(data.context) ? str(data.context.cwd) : null;
        break;
      case 'user.message': {
        const content = str(data.content);
        if (content) log.prompts.push(content);
        turnText = null;
        break;
      }
      case 'assistant.message': {
        const content = str(data.content);
        if (content && content.trim() !== '') {
          if (turnText !== undefined) turnText = content;
          log.lastAssistantText = content;
        }
        break;
      }
      case 'tool.execution_start': {
        const id = str(data.toolCallId);
        const name = str(data.toolName);
        if (!id || !name || byId.has(id)) break;
        const call: CopilotCallRecord = {
          toolCallId: id,
          toolName: name,
          args: data.arguments ?? null,
          startedAt: record.timestamp,
          complete: null,
          hookId: null,
        };
        byId.set(id, call);
        log.calls.push(call);
        open.push(call);
        break;
      }
      case 'tool.execution_complete': {
        const call = byId.get(str(data.toolCallId) ?? '');
        if (!call || call.complete) break;
        call.complete = completion(data);
        open.splice(open.indexOf(call), 1);
        break;
      }
      case 'hook.start':
        readHookStart(data, log, open, turnText);
        break;
      case 'session.shutdown':
        log.shutdown = true;
        break;
    }
  }
  return log;
}

/** A hook's input as Copilot logged it: a tool hook names its call (by its arguments), agentStop its turn. */
function readHookStart(data: Record<string, unknown>, log: CopilotEventsLog, open: readonly CopilotCallRecord[], turnText: string | null | undefined): void {
  const input = isRecord(data.input) ? data.input : null;
  if (!input) return;
  if (data.hookType === 'agentStop') {
    if (typeof input.timestamp === 'number' && turnText !== undefined) log.stopTexts.set(input.timestamp, turnText);
    return;
  }
  if (data.hookType !== 'postToolUse' && data.hookType !== 'postToolUseFailure') return;
  const sessionId = str(input.sessionId) ?? log.sessionId;
  const toolName = str(input.toolName);
  if (!sessionId || !toolName) return;
  // The hook runs between its call's start and completion: the earliest such call with these arguments.
  const args = canonicalJson(input.toolArgs ?? null);
  const call = open.find((c) => c.hookId === null && c.toolName === toolName && canonicalJson(c.args) === args);
  if (call) call.hookId = copilotToolUseId({ sessionId, timestamp: input.timestamp, toolName, toolArgs: input.toolArgs ?? null });
}
