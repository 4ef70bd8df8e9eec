import { copilotToolFailure } from '../../hosts/copilot/adapter.js';
import type { CopilotCallRecord, CopilotEventsLog } from '../../hosts/copilot/events-log.js';
import type { HostCall, HostTranscript } from './mined-call.js';

/**
 * Copilot CLI's `events.jsonl` → the tool calls its postToolUse(Failure) hooks would have
 * delivered. Pure. Only finished calls (a `tool.execution_complete`) become events: one killed
 * mid-call left no result. The call's own `toolCallId` names it; the provisional id memtrace's hook
 * gave it (read back from the hook's logged input) is the other name it may be queued under, so a
 * call the hooks delivered is recognised — and then named by its real id too. The response is
 * rebuilt as the hook's `toolResult`, so failures are derived the same way (the shell's exit code
 * from `shellExecution`).
 */
function hostCallOf(call: CopilotCallRecord & { complete: NonNullable<CopilotCallRecord['complete']> }): HostCall {
  const { complete } = call;
  const at = Date.parse(call.startedAt ?? '');
  const base = {
    toolUseId: call.toolCallId,
    alsoKnownAs: call.hookId ? [call.hookId] : [],
    toolName: call.toolName,
    toolInput: call.args,
    atMs: Number.isFinite(at) ? at : null,
  };
  if (!complete.success) return { ...base, toolResponse: null, failure: { error: complete.error ?? 'the tool failed', exitCode: null } };
  const toolResponse = { resultType: 'success', textResultForLlm: complete.content ?? '' };
  return { ...base, toolResponse, failure: copilotToolFailure(call.toolName, toolResponse, complete.exitCode) };
}

export function readCopilotTranscript(log: CopilotEventsLog, fallbackSessionId: string): HostTranscript {
  const calls: HostCall[] = [];
  for (const call of log.calls) if (call.complete) calls.push(hostCallOf({ ...call, complete: call.complete }));
  return { sessionId: log.sessionId ?? fallbackSessionId, calls, prompt: log.prompts[0] ?? null, cwd: log.cwd, lastAssistantText: log.lastAssistantText };
}
