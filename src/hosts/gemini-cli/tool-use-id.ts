import { canonicalJson, hash64 } from '../call-hash.js';

/**
 * A tool_use_id for a Gemini CLI tool call. Gemini's AfterTool payload carries no call id, and in
 * 0.61 the call's id reaches the chat file only after the hook has run. What the hook can read is
 * the model turn that made the call (written before the tools run), so the id is derived from
 * what the hook and transcript mining both see: the session, that turn's id and time, the tool
 * and its input. Mining recomputes it from the chat file, so a call the hook delivered is never
 * queued twice. Without a readable turn the hook's own timestamp stands in (then mining cannot
 * match it). Pure.
 */
export interface ToolCallIdentity {
  sessionId: string;
  /** The model turn's id, or null when the transcript could not be read. */
  turnId: string | null;
  /** The model turn's timestamp, or the hook's when the turn is unknown. */
  time: string | null;
  toolName: string;
  toolInput: unknown;
}

export function geminiToolUseId(call: ToolCallIdentity): string {
  const parts = [call.sessionId, call.turnId ?? '', call.time ?? '', call.toolName, canonicalJson(call.toolInput ?? null)];
  return `gemini-${hash64(parts.join('\u0000'))}`;
}
