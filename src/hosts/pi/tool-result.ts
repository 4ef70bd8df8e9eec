/**
 * pi's tool results as its `tool_result` event and its session file both hold them
 * (AGENT-HOSTS-2.md §4.3, §4.5): `content` blocks (`{type:"text", text}`), `details`, and
 * `isError`, which pi sets for a tool that threw and for a shell that exited non-zero (its
 * text then ends `Command exited with code N`). Pure; read by the adapter and by mining.
 */
export const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const SHELL_EXIT = /Command exited with code (-?\d+)\s*$/;
/** The output quoted in a failure's error text; the whole result stays in tool_response. */
const ERROR_OUTPUT_CHARS = 4_000;

/** The text of a result's content blocks (images and other blocks are left out). */
export function piContentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => (isObject(block) && block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .filter((t) => t !== '')
    .join('\n');
}

/** Why a call failed, or null when it did not; a bash failure carries its exit code. */
export function piToolFailure(toolName: string, isError: boolean, content: unknown): { error: string; exitCode: number | null } | null {
  if (!isError) return null;
  const output = piContentText(content).trim();
  const exit = toolName === 'bash' ? SHELL_EXIT.exec(output) : null;
  if (exit) {
    const exitCode = Number(exit[1]);
    const before = output.slice(0, exit.index).trim();
    return { error: `Exit code ${exitCode}${before ? `\n${before.slice(0, ERROR_OUTPUT_CHARS)}` : ''}`, exitCode };
  }
  return { error: output === '' ? 'the tool reported an error' : output.slice(0, ERROR_OUTPUT_CHARS), exitCode: null };
}
