import type { HostName } from '../hosts/platforms.js';

/** A transcript as listed: one stat per file. */
export interface TranscriptTarget {
  path: string;
  sessionId: string;
  size: number;
  mtimeMs: number;
  /** The agent that wrote it; from its path when absent (mining/hosts/host-transcripts.ts). */
  host?: HostName;
  /** A subagent's transcript (`<session-id>/subagents/agent-<id>.jsonl`): the subagent's id. */
  agent?: { id: string };
}
