/**
 * Whether a model request an agent host sent offers memtrace's MCP tools, in the host's own way:
 * Claude Code 2.1.330 and Codex 0.169 defer MCP tools (Claude Code lists their names for its
 * ToolSearch, Codex lists the server's namespace for its tool_search), Gemini CLI 0.61 declares
 * them as functions named `mcp_memtrace_<tool>`. A host lists a server only once it answered
 * `initialize` and `tools/list`, so this says the server was ready for that request.
 */
export type McpHost = 'claude-code' | 'gemini-cli' | 'codex' | 'copilot';

export function offersMemtraceTools(host: McpHost, body: unknown): boolean {
  if (host === 'gemini-cli') {
    const tools = ((body as { tools?: Array<{ functionDeclarations?: Array<{ name?: string }> }> })?.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
    const names = new Set(tools.map((f) => f.name));
    return ['search', 'timeline', 'get_observations'].every((tool) => names.has(`mcp_memtrace_${tool}`));
  }
  const text = JSON.stringify(body ?? {});
  if (host === 'codex') return text.includes('mcp__memtrace');
  // Copilot CLI 1.0.102 names a server's tools `<server>-<tool>` and declares them as functions.
  if (host === 'copilot') return ['search', 'timeline', 'get_observations'].every((tool) => text.includes(`"memtrace-${tool}"`));
  return ['search', 'timeline', 'get_observations'].every((tool) => text.includes(`mcp__memtrace__${tool}`));
}
