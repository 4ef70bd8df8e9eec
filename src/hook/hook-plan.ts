/**
 * Claude Code hook payloads → worker API calls. Pure: the hook entry does the I/O.
 * Fields carried per event (docs/claude-code-e2e.md): session_id, transcript_path, cwd on all;
 * prompt/prompt_id (UserPromptSubmit); tool_name, tool_input, tool_response, tool_use_id,
 * duration_ms, agent_id (PostToolUse); error, is_interrupt (PostToolUseFailure); source (SessionStart).
 */
export const HOOK_NAMES = ['session-start', 'user-prompt-submit', 'post-tool-use', 'post-tool-use-failure', 'stop', 'session-end'] as const;
export type HookName = (typeof HOOK_NAMES)[number];

/** The telemetry name of each hook (hook_rollup's `hook_event`). */
export const HOOK_EVENT_OF: Readonly<Record<HookName, string>> = {
  'session-start': 'session_start',
  'user-prompt-submit': 'user_prompt_submit',
  'post-tool-use': 'post_tool_use',
  'post-tool-use-failure': 'post_tool_use_failure',
  stop: 'stop',
  'session-end': 'session_end',
};

export interface HookCall {
  method: 'POST' | 'GET';
  path: string;
  body?: Record<string, unknown>;
}

export type HookPlan = { ok: true; calls: HookCall[]; printContext: boolean } | { ok: false; reason: string };

export const DEFAULT_CONTEXT_BUDGET_TOKENS = 2000;

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : null);

/** Only defined values: an absent field stays absent rather than becoming null noise. */
function compact(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== null && v !== undefined));
}

export function planHook(name: HookName, input: Record<string, unknown>, extra: { lastAssistantMessage?: string | null; budgetTokens?: number } = {}): HookPlan {
  const sessionId = text(input.session_id);
  if (!sessionId) return { ok: false, reason: 'hook input has no session_id' };
  const common = { session_id: sessionId, cwd: text(input.cwd), transcript_path: text(input.transcript_path) };
  switch (name) {
    case 'session-start': {
      const query = new URLSearchParams({ ...(common.cwd ? { cwd: common.cwd } : {}), budget_tokens: String(extra.budgetTokens ?? DEFAULT_CONTEXT_BUDGET_TOKENS) });
      return {
        ok: true,
        printContext: true,
        calls: [
          { method: 'POST', path: '/api/sessions/init', body: compact({ ...common, platform: 'claude-code', source: text(input.source) }) },
          { method: 'GET', path: `/api/context/inject?${query}` },
        ],
      };
    }
    case 'user-prompt-submit':
      return {
        ok: true,
        printContext: false,
        calls: [{ method: 'POST', path: '/api/sessions/init', body: compact({ ...common, platform: 'claude-code', prompt: text(input.prompt), prompt_id: text(input.prompt_id) }) }],
      };
    case 'post-tool-use':
    case 'post-tool-use-failure': {
      const toolName = text(input.tool_name);
      if (!toolName) return { ok: false, reason: `${name} input has no tool_name` };
      const failed = name === 'post-tool-use-failure';
      return {
        ok: true,
        printContext: false,
        calls: [
          {
            method: 'POST',
            path: '/api/sessions/observations',
            body: compact({
              ...common,
              tool_use_id: text(input.tool_use_id),
              tool_name: toolName,
              tool_input: input.tool_input ?? null,
              ...(failed ? { error: typeof input.error === 'string' ? input.error : 'failed', is_interrupt: input.is_interrupt === true } : { tool_response: input.tool_response ?? null }),
              duration_ms: int(input.duration_ms),
              agent_id: text(input.agent_id),
              prompt_id: text(input.prompt_id),
            }),
          },
        ],
      };
    }
    case 'stop': {
      const last = text(input.last_assistant_message) ?? extra.lastAssistantMessage ?? null;
      return { ok: true, printContext: false, calls: [{ method: 'POST', path: '/api/sessions/summarize', body: compact({ ...common, last_assistant_message: last, prompt_id: text(input.prompt_id) }) }] };
    }
    case 'session-end':
      return { ok: true, printContext: false, calls: [{ method: 'POST', path: '/api/sessions/end', body: compact({ ...common, reason: text(input.reason) }) }] };
  }
}
