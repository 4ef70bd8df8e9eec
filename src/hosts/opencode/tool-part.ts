/**
 * OpenCode's message parts as its hooks, bus events and SQLite store all hold them
 * (AGENT-HOSTS-2.md §2.4, §2.6): a tool part `{tool, callID, state: {status, input, output,
 * metadata, error}}`, text parts `{text, synthetic?}`. Pure; read by the adapter and by mining.
 */
export const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const SHELL_TOOL = 'bash';
/** The output quoted in a failure's error text; the whole output stays in tool_response. */
const ERROR_OUTPUT_CHARS = 4_000;

/**
 * Why a tool call failed, or null when it did not: a tool that threw (state `error`, which
 * OpenCode reports through no hook), or a bash call that exited non-zero (a normal result
 * with `metadata.exit`).
 */
export function openCodeToolFailure(toolName: string, state: Record<string, unknown>): { error: string; exitCode: number | null } | null {
  if (state.status === 'error') {
    const error = typeof state.error === 'string' && state.error !== '' ? state.error : 'the tool reported an error';
    return { error: error.slice(0, ERROR_OUTPUT_CHARS), exitCode: null };
  }
  if (toolName !== SHELL_TOOL) return null;
  const metadata = isObject(state.metadata) ? state.metadata : {};
  const exit = metadata.exit;
  if (typeof exit !== 'number' || !Number.isInteger(exit) || exit === 0) return null;
  const output = typeof state.output === 'string' ? state.output.trim() : typeof metadata.output === 'string' ? metadata.output.trim() : '';
  return { error: `Exit code ${exit}${output ? `\n${output.slice(0, ERROR_OUTPUT_CHARS)}` : ''}`, exitCode: exit };
}

/** `opencode run "a b"` stores the message wrapped in one layer of literal double quotes. */
const RUN_QUOTES = /^"([\s\S]*)"$/;

/** The user's own words in a message's parts: its text parts, without ones memtrace (or anything else) added. */
export function openCodePrompt(parts: unknown): string | null {
  if (!Array.isArray(parts)) return null;
  const texts = parts
    .filter((part): part is Record<string, unknown> => isObject(part) && part.type === 'text' && part.synthetic !== true && part.ignored !== true)
    .map((part) => (typeof part.text === 'string' ? part.text : ''))
    .filter((t) => t.trim() !== '');
  if (texts.length === 0) return null;
  const joined = texts.join('\n');
  return RUN_QUOTES.exec(joined)?.[1] ?? joined;
}
