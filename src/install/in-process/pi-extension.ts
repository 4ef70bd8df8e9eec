import { builtins, type Builtins } from './builtins.js';
import { callMemoryTool } from './mcp-link.js';
import { contextOf, withinBudget } from './session-context.js';
import { linkSettings, type InstalledSettings } from './settings.js';
import { createWorkerLink } from './worker-link.js';

/**
 * memtrace's pi extension (AGENT-HOSTS-2.md §4): pi 0.73 loads it into its own Node process and
 * awaits every handler, so each one only picks what the worker's adapter reads
 * (src/hosts/pi/adapter.ts) and queues it (worker-link.ts). pi names every event with its
 * session and reports failed tools itself (`isError`); the extension adds the run's last
 * assistant text at `agent_end`. Context goes in at the session's first `before_agent_start`
 * as a custom message (stored in the session, hidden in the TUI), waited for at most the hook
 * budget. pi has no MCP: memtrace's memory tools are registered as pi tools instead.
 */
export interface MemoryToolSpec {
  /** The MCP tool's name (`search`); pi sees `memtrace_search`. */
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** The part of pi's ExtensionAPI memtrace uses. */
interface PiApi {
  on(event: string, handler: (event: Record<string, unknown>, ctx: PiContext) => unknown): void;
  registerTool(tool: Record<string, unknown>): void;
}

interface PiContext {
  cwd?: unknown;
  model?: { provider?: unknown; id?: unknown } | null;
  sessionManager?: { getSessionId?: () => unknown; getSessionFile?: () => unknown };
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** What the adapter reads of pi's context: the session, its file, its directory and model. */
function factsOf(ctx: PiContext) {
  const call = (f: (() => unknown) | undefined) => {
    try {
      return typeof f === 'function' ? f() : undefined;
    } catch {
      return undefined;
    }
  };
  const model = ctx?.model && str(ctx.model.provider) && str(ctx.model.id) ? `${ctx.model.provider}/${ctx.model.id}` : null;
  return {
    cwd: str(ctx?.cwd),
    sessionId: str(call(ctx?.sessionManager?.getSessionId?.bind(ctx.sessionManager))),
    sessionFile: str(call(ctx?.sessionManager?.getSessionFile?.bind(ctx.sessionManager))),
    model,
  };
}

/** The last assistant message of a run that said something. */
function lastAssistantText(messages: unknown): string | null {
  if (!Array.isArray(messages)) return null;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (!isObject(message) || message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    const text = message.content
      .map((block) => (isObject(block) && block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
      .join('\n')
      .trim();
    if (text !== '') return text;
  }
  return null;
}

export function piExtension(
  installed: InstalledSettings,
  tools: readonly MemoryToolSpec[],
  pi: PiApi,
  node: Builtins = builtins(),
  env: Record<string, string | undefined> = process.env,
  overrides: Parameters<typeof linkSettings>[3] = {},
): void {
  const settings = linkSettings('pi', installed, env, overrides);
  if (settings.disabled) return;
  const link = createWorkerLink(settings, node);
  const started = new Map<string, { reply: Promise<string>; contextGiven: boolean }>();

  const start = (facts: ReturnType<typeof factsOf>, reason: unknown) => {
    if (!facts.sessionId) return null;
    let state = started.get(facts.sessionId);
    if (!state) {
      state = {
        reply: link.send('session_start', { event: { type: 'session_start', reason: str(reason) }, ctx: facts }, { cwd: facts.cwd }),
        contextGiven: false,
      };
      started.set(facts.sessionId, state);
    }
    return state;
  };

  pi.on('session_start', (event, ctx) => {
    start(factsOf(ctx), event.reason);
  });
  pi.on('before_agent_start', async (event, ctx) => {
    const facts = factsOf(ctx);
    const state = start(facts, 'resume');
    void link.send('before_agent_start', { event: { type: 'before_agent_start', prompt: event.prompt }, ctx: facts });
    if (!state || state.contextGiven) return undefined;
    state.contextGiven = true;
    const context = contextOf(await withinBudget(state.reply, settings.budgetMs));
    return context ? { message: { customType: 'memtrace', content: context, display: false } } : undefined;
  });
  pi.on('tool_result', (event, ctx) => {
    const { type, toolCallId, toolName, input, content, details, isError } = event;
    void link.send('tool_result', { event: { type, toolCallId, toolName, input, content, details, isError }, ctx: factsOf(ctx) });
  });
  pi.on('agent_end', (event, ctx) => {
    void link.send('agent_end', { event: { type: 'agent_end' }, ctx: factsOf(ctx), last_assistant_message: lastAssistantText(event.messages) });
  });
  pi.on('session_shutdown', async (event, ctx) => {
    const facts = factsOf(ctx);
    if (facts.sessionId) started.delete(facts.sessionId);
    void link.send('session_shutdown', { event: { type: 'session_shutdown', reason: str(event.reason) }, ctx: facts });
    // pi exits after this (`-p`, `--mode json`, quitting the TUI): what is queued goes now, bounded.
    await link.drain(settings.budgetMs);
  });

  for (const tool of tools) {
    pi.registerTool({
      name: `memtrace_${tool.name}`,
      label: tool.title,
      description: tool.description,
      ...(tool.name === 'search' ? { promptSnippet: "Search memtrace's memory of past sessions (observations, summaries) by meaning" } : {}),
      parameters: tool.inputSchema,
      async execute(_id: unknown, params: unknown, signal: AbortSignal | undefined) {
        const answer = await callMemoryTool(settings, node, tool.name, params, signal);
        // pi marks a tool result as an error only when execute throws.
        if (answer.isError) throw new Error(answer.text);
        return { content: [{ type: 'text', text: answer.text }], details: {} };
      },
    });
  }
}
