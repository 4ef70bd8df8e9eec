/**
 * Claude Code hook payloads → worker API calls. Pure: the command does the I/O.
 * Hook input fields: session_id, transcript_path, cwd, hook_event_name, and per event
 * prompt (UserPromptSubmit), tool_name/tool_input/tool_response/tool_use_id (PostToolUse).
 */
export const HOOK_NAMES = ['session-start', 'user-prompt-submit', 'post-tool-use', 'stop', 'session-end'] as const;
export type HookName = (typeof HOOK_NAMES)[number];

export interface HookCall {
  method: 'POST' | 'GET';
  path: string;
  body?: Record<string, unknown>;
}

export type HookPlan = { ok: true; calls: HookCall[]; printContext: boolean } | { ok: false; reason: string };

export function projectOf(cwd: unknown): string | null {
  if (typeof cwd !== 'string' || cwd === '') return null;
  const parts = cwd.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? null;
}

export function planHook(name: HookName, input: Record<string, unknown>, extra: { lastAssistantMessage?: string | null; budgetTokens?: number } = {}): HookPlan {
  const sessionId = input.session_id;
  if (typeof sessionId !== 'string' || sessionId === '') return { ok: false, reason: 'hook input has no session_id' };
  const project = projectOf(input.cwd);
  switch (name) {
    case 'session-start': {
      const query = new URLSearchParams({ ...(project ? { project } : {}), budget_tokens: String(extra.budgetTokens ?? 2000) });
      return {
        ok: true,
        printContext: true,
        calls: [
          { method: 'POST', path: '/api/sessions/init', body: { session_id: sessionId, project, platform: 'claude-code' } },
          { method: 'GET', path: `/api/context/inject?${query}` },
        ],
      };
    }
    case 'user-prompt-submit':
      return {
        ok: true,
        printContext: false,
        calls: [{ method: 'POST', path: '/api/sessions/init', body: { session_id: sessionId, project, prompt: typeof input.prompt === 'string' ? input.prompt : null, platform: 'claude-code' } }],
      };
    case 'post-tool-use':
      if (typeof input.tool_name !== 'string') return { ok: false, reason: 'PostToolUse input has no tool_name' };
      return {
        ok: true,
        printContext: false,
        calls: [
          {
            method: 'POST',
            path: '/api/sessions/observations',
            body: {
              session_id: sessionId,
              tool_use_id: typeof input.tool_use_id === 'string' ? input.tool_use_id : null,
              tool_name: input.tool_name,
              tool_input: input.tool_input ?? null,
              tool_response: input.tool_response ?? null,
              cwd: typeof input.cwd === 'string' ? input.cwd : null,
            },
          },
        ],
      };
    case 'stop': {
      const last = typeof input.last_assistant_message === 'string' ? input.last_assistant_message : (extra.lastAssistantMessage ?? null);
      return { ok: true, printContext: false, calls: [{ method: 'POST', path: '/api/sessions/summarize', body: { session_id: sessionId, last_assistant_message: last } }] };
    }
    case 'session-end':
      return { ok: true, printContext: false, calls: [{ method: 'POST', path: '/api/sessions/end', body: { session_id: sessionId } }] };
  }
}

/** The last assistant text in a Claude Code JSONL transcript tail (lines may be cut at the start). */
export function lastAssistantText(transcriptTail: string): string | null {
  const lines = transcriptTail.split('\n');
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = lines[i]!.trim();
    if (!line.startsWith('{')) continue;
    let entry: { type?: unknown; message?: { content?: unknown } };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (entry.type !== 'assistant') continue;
    const content = entry.message?.content;
    const text = typeof content === 'string' ? content : Array.isArray(content) ? content.filter((p) => p?.type === 'text' && typeof p.text === 'string').map((p) => p.text as string).join('\n') : '';
    if (text.trim() !== '') return text;
  }
  return null;
}
