import fs from 'node:fs';

/**
 * Claude Code's subagent transcripts (CLAUDE-CODE.md): `<session-id>/subagents/agent-<id>.jsonl`
 * beside the session's own transcript, with `agent-<id>.meta.json` naming the subagent's type
 * (`{"agentType":"Explore",…}`). Their lines carry the parent session's `sessionId`, so their
 * tool calls belong to that session, named by the subagent that made them.
 */
const SUBAGENT_FILE = /^agent-([A-Za-z0-9_-]{1,128})\.jsonl$/;
export const SUBAGENTS_DIR = 'subagents';
const MAX_META_BYTES = 64 * 1024;

/** The agent id of a listed subagent transcript (`agent-a1b2c3.jsonl` → `a1b2c3`), or null. */
export function subagentIdOfListedFile(basename: string): string | null {
  return SUBAGENT_FILE.exec(basename)?.[1] ?? null;
}

/** The key a subagent transcript's segments are deduplicated under: apart from its session's own file. */
export function subagentKeyId(sessionId: string, agentId: string): string {
  return `${sessionId}/agent-${agentId}`;
}

/** The subagent's type from its meta file (`agentType`), or null when absent or unreadable. */
export function readSubagentType(transcriptPath: string): string | null {
  const meta = transcriptPath.replace(/\.jsonl$/, '.meta.json');
  try {
    if (fs.statSync(meta).size > MAX_META_BYTES) return null;
    const value = JSON.parse(fs.readFileSync(meta, 'utf8')) as { agentType?: unknown };
    return typeof value.agentType === 'string' && value.agentType.trim() !== '' && value.agentType.length <= 128 ? value.agentType : null;
  } catch {
    return null;
  }
}
