/** Reading hosts' JSONL transcripts (Codex rollouts, Copilot CLI session logs). Pure. */

/** A JSON object: not null, not an array. */
export const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** One line as a JSON object with a string `type`, or null (a blank, a tail cut mid-line, anything else). */
export function parseTypedLine(line: string): (Record<string, unknown> & { type: string }) | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return null;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return null;
  }
  return isRecord(value) && typeof value.type === 'string' ? (value as Record<string, unknown> & { type: string }) : null;
}
