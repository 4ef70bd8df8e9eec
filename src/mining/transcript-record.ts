/**
 * One parsed Claude Code transcript line, reduced to what mining needs. Pure and defensive:
 * Anthropic calls the format internal, so every field is checked and unknown shapes yield
 * empty lists rather than errors. See /docs/mining.md for the shapes this reads.
 */
export interface ToolUse {
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResult {
  toolUseId: string;
  content: unknown;
  isError: boolean;
}

export interface TranscriptRecord {
  type: string;
  uuid: string | null;
  timestampMs: number | null;
  cwd: string | null;
  isSidechain: boolean;
  /** A `system` line with subtype `compact_boundary`: a new segment may start here. */
  isBoundary: boolean;
  /** The user line after a boundary that holds the compaction summary: context, not content. */
  isCompactSummary: boolean;
  /** A user or assistant line that is conversation (not meta, not a compaction summary). */
  isContent: boolean;
  /** Assistant lines of one API response share it (one line per content block). */
  messageId: string | null;
  texts: string[];
  toolUses: ToolUse[];
  toolResults: ToolResult[];
  /** The structured result hooks receive as tool_response; undefined when the line has none. */
  toolUseResult: unknown;
  /** The text of a genuine user prompt (not a tool result, meta or compaction summary). */
  prompt: string | null;
}

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

export function toRecord(value: unknown): TranscriptRecord | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const line = value as Record<string, unknown>;
  const type = str(line.type);
  if (type === null) return null;
  const message = line.message !== null && typeof line.message === 'object' && !Array.isArray(line.message) ? (line.message as Record<string, unknown>) : null;
  const content = message?.content;
  const blocks = Array.isArray(content) ? content.filter((b): b is Record<string, unknown> => b !== null && typeof b === 'object' && !Array.isArray(b)) : [];
  const isMeta = line.isMeta === true;
  const isCompactSummary = line.isCompactSummary === true;
  const isSidechain = line.isSidechain === true;

  const texts: string[] = [];
  const toolUses: ToolUse[] = [];
  const toolResults: ToolResult[] = [];
  if (type === 'assistant') {
    for (const block of blocks) {
      if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
      else if (block.type === 'tool_use') {
        const id = str(block.id);
        const name = str(block.name);
        if (id !== null && name !== null) toolUses.push({ id, name, input: block.input ?? null });
      }
    }
  } else if (type === 'user') {
    for (const block of blocks) {
      if (block.type !== 'tool_result') continue;
      const toolUseId = str(block.tool_use_id);
      if (toolUseId !== null) toolResults.push({ toolUseId, content: block.content ?? null, isError: block.is_error === true });
    }
  }

  let prompt: string | null = null;
  if (type === 'user' && !isMeta && !isCompactSummary && !isSidechain && toolResults.length === 0) {
    const text =
      typeof content === 'string'
        ? content
        : blocks
            .filter((b) => b.type === 'text' && typeof b.text === 'string')
            .map((b) => b.text as string)
            .join('\n');
    prompt = text.trim() === '' ? null : text;
  }
  const timestamp = typeof line.timestamp === 'string' ? Date.parse(line.timestamp) : Number.NaN;
  return {
    type,
    uuid: str(line.uuid),
    timestampMs: Number.isFinite(timestamp) ? timestamp : null,
    cwd: str(line.cwd),
    isSidechain,
    isBoundary: type === 'system' && line.subtype === 'compact_boundary',
    isCompactSummary,
    isContent: (type === 'user' || type === 'assistant') && !isMeta && !isCompactSummary,
    messageId: str(message?.id),
    texts,
    toolUses,
    toolResults,
    toolUseResult: line.toolUseResult,
    prompt,
  };
}
