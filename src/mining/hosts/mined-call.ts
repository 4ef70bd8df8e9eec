import { fitPayload } from '../../hosts/fit-payload.js';
import type { HostName } from '../../hosts/platforms.js';
import type { MinedEvent, MinedPayload } from '../segment-miner.js';

/**
 * One tool call read from a host's transcript, as the hooks would have delivered it. The
 * transcript readers of each host (gemini-chat.ts, codex-rollout.ts) produce these; the whole
 * file is one segment (these hosts have no compaction boundary mining needs to track).
 */
export interface HostCall {
  toolUseId: string;
  /** Other ids the hooks may have delivered the same call under (checked before queueing). */
  alsoKnownAs: string[];
  toolName: string;
  toolInput: unknown;
  toolResponse: unknown;
  failure: { error: string; exitCode: number | null } | null;
  atMs: number | null;
  /** A subagent made the call (OpenCode: its child session). */
  agentId?: string | null;
}

/** What a host transcript holds for mining: its calls, the session's first prompt, cwd and last answer. */
export interface HostTranscript {
  sessionId: string | null;
  calls: HostCall[];
  prompt: string | null;
  cwd: string | null;
  lastAssistantText: string | null;
}

/** A mined event shaped like the hook's, shortened to the hooks' body limit when it is larger. */
export function minedEventOf(
  host: HostName,
  call: HostCall,
  context: { transcriptPath: string; cwd: string | null },
): { event: MinedEvent; shortened: boolean } {
  const common = {
    tool_name: call.toolName,
    tool_input: call.toolInput,
    tool_response: call.toolResponse,
    cwd: context.cwd,
    at: call.atMs,
    source: 'transcript' as const,
    transcript_path: context.transcriptPath,
    platform: host,
    ...(call.agentId ? { agent_id: call.agentId } : {}),
  };
  const payload: MinedPayload = call.failure
    ? { kind: 'post_tool_use_failure', ...common, error: call.failure.error, ...(call.failure.exitCode === null ? {} : { exit_code: call.failure.exitCode }) }
    : { kind: 'post_tool_use', ...common };
  const fitted = fitPayload(payload);
  return {
    event: { toolUseId: call.toolUseId, ...(call.alsoKnownAs.length > 0 ? { alsoKnownAs: call.alsoKnownAs } : {}), segment: 0, payload: fitted.value },
    shortened: fitted.shortened,
  };
}
