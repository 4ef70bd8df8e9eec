/**
 * A hook payload over the input limit cannot be parsed whole, but its identity can be read from
 * the head (hosts write ids, paths and the tool's name before its input and response). What
 * this returns goes through the host's adapter like any payload, so the tool call is still
 * stored — marked, with the head and tail of what came — rather than lost. Pure.
 */
const IDENTITY_KEYS = ['session_id', 'hook_event_name', 'cwd', 'transcript_path', 'tool_name', 'tool_use_id', 'turn_id', 'prompt_id', 'timestamp'] as const;
const HEAD_AND_TAIL_CHARS = 16_000;

export function salvageOversizedPayload(head: string, tail: string, totalBytes: number): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const key of IDENTITY_KEYS) {
    const match = new RegExp(`"${key}"\\s*:\\s*"((?:[^"\\\\]|\\\\.){1,4096})"`).exec(head);
    if (match) {
      try {
        payload[key] = JSON.parse(`"${match[1]}"`) as string;
      } catch {
        /* an escape cut by the limit: leave the key out */
      }
    }
  }
  const note = `[memtrace: this event was ${totalBytes} bytes, over the hook input limit; only its identity and the first and last ${HEAD_AND_TAIL_CHARS} characters were kept]`;
  const excerpt = `${head.slice(0, HEAD_AND_TAIL_CHARS)}\n…\n${tail.slice(-HEAD_AND_TAIL_CHARS)}`;
  payload.tool_input = { memtrace_note: note };
  payload.tool_response = { memtrace_note: note, excerpt };
  return payload;
}
