/**
 * `memtrace hook --host gemini-cli|codex <event>`: the host's payload, through its adapter, into
 * calls on the worker's HTTP routes. A stand-in until the hook transport streams raw payloads to
 * the worker (which will then run the adapter itself); it is kept apart from the Claude Code plan
 * so that swap touches this file only. The adapter is pure; its transcript reads are the host's
 * own tail readers (src/hosts/adapter-deps.ts).
 */
import { adapterDepsFor } from '../hosts/adapter-deps.js';
import type { HookEvent } from '../hosts/hook-event.js';
import type { HostName } from '../hosts/platforms.js';
import { adapterFor } from '../hosts/registry.js';
import { DEFAULT_CONTEXT_BUDGET_TOKENS, type HookCall } from './hook-plan.js';

export type HostHookPlan =
  | { ok: true; calls: HookCall[]; printContext: boolean; hookEvent: string; contextOutput(markdown: string): string }
  | { ok: true; calls: null; ignored: string }
  | { ok: false; reason: string };

/** The body of an event on the HTTP API: its fields without `kind` (the route and fields say it). */
function bodyOf(event: HookEvent): Record<string, unknown> {
  const { kind: _kind, ...fields } = event;
  return fields;
}

/** Which route carries each kind of event (SPEC §4.3). */
export function callsFor(event: HookEvent, budgetTokens = DEFAULT_CONTEXT_BUDGET_TOKENS): HookCall[] {
  const body = bodyOf(event);
  switch (event.kind) {
    case 'session_start': {
      const query = new URLSearchParams({ ...(event.cwd ? { cwd: event.cwd } : {}), budget_tokens: String(budgetTokens) });
      return [
        { method: 'POST', path: '/api/sessions/init', body },
        { method: 'GET', path: `/api/context/inject?${query}` },
      ];
    }
    case 'user_prompt_submit':
      return [{ method: 'POST', path: '/api/sessions/init', body }];
    case 'post_tool_use':
    case 'post_tool_use_failure':
      return [{ method: 'POST', path: '/api/sessions/observations', body }];
    case 'stop':
      return [{ method: 'POST', path: '/api/sessions/summarize', body }];
    case 'session_end':
      return [{ method: 'POST', path: '/api/sessions/end', body }];
  }
}

export function planHostHook(host: HostName, eventName: string, input: Record<string, unknown>): HostHookPlan {
  const adapter = adapterFor(host);
  if (!adapter) return { ok: false, reason: `no adapter for host ${host}` };
  const result = adapter.toEvent(eventName, input, adapterDepsFor(host));
  if (!result.ok) return result;
  if (result.event === null) return { ok: true, calls: null, ignored: result.ignored };
  const event = result.event;
  // The hook that ran (a derived failure still ran the host's tool hook): what hook_rollup counts.
  const hookEvent = adapter.kindOf(eventName) ?? event.kind;
  return { ok: true, calls: callsFor(event), printContext: event.kind === 'session_start', hookEvent, contextOutput: (markdown) => adapter.contextOutput(markdown) };
}
