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

/** JSON with object keys sorted, so equal values give equal text whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Two FNV-1a hashes with different offset bases: 64 bits, plenty within one session. */
function hash64(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x2a5f3c71;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x01000193) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

export function geminiToolUseId(call: ToolCallIdentity): string {
  const parts = [call.sessionId, call.turnId ?? '', call.time ?? '', call.toolName, canonicalJson(call.toolInput ?? null)];
  return `gemini-${hash64(parts.join('\u0000'))}`;
}
