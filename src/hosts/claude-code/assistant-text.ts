/**
 * The last assistant message in a Claude Code JSONL transcript tail, for Claude Code versions whose
 * Stop hook sends no `last_assistant_message`. A message is written one line per content block,
 * all sharing `message.id`, so the lines are joined by it; sidechain (subagent) lines are skipped.
 * The tail may start mid-line. Returns null when no complete message is in the tail. Pure.
 */
export function lastAssistantText(transcriptTail: string): { text: string; complete: boolean } | null {
  const lines = transcriptTail.split('\n');
  let messageId: string | null = null;
  const parts: string[] = [];
  let reachedStart = false;
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = lines[i]!.trim();
    if (!line.startsWith('{')) continue;
    let entry: { type?: unknown; isSidechain?: unknown; message?: { id?: unknown; content?: unknown } };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (entry.type !== 'assistant' || entry.isSidechain === true) {
      // A user or other line before the collected message: its first line was seen.
      if (messageId !== null && entry.type === 'user') {
        reachedStart = true;
        break;
      }
      continue;
    }
    const id = typeof entry.message?.id === 'string' ? entry.message.id : `line-${i}`;
    if (messageId !== null && id !== messageId) {
      reachedStart = true;
      break;
    }
    const text = textOf(entry.message?.content);
    if (messageId === null && text === '') continue;
    messageId = id;
    if (text !== '') parts.unshift(text);
  }
  if (messageId === null || parts.length === 0) return null;
  return { text: parts.join('\n'), complete: reachedStart };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((p: { type?: unknown; text?: unknown }) => p?.type === 'text' && typeof p.text === 'string')
    .map((p: { text: string }) => p.text)
    .join('\n');
}
