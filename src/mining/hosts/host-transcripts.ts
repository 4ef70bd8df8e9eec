/**
 * Where Gemini CLI, Codex and Copilot CLI keep their transcripts (AGENT-HOSTS.md §2.6, §3.6), and which host
 * wrote a transcript, from its path. Pure.
 * - Gemini: `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl` (the full session id is
 *   in the file's first line; `<project>/.project_root` holds the project's path).
 * - Codex: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<session uuid>.jsonl`.
 * - Copilot CLI: `$COPILOT_HOME/session-state/<session uuid>/events.jsonl` (`~/.copilot`).
 */
import type { HostName } from '../../hosts/platforms.js';

const CODEX_ROLLOUT = /(?:^|\/)rollout-[^/]*-([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$/;
const GEMINI_CHAT = /(?:^|\/)chats\/session-[^/]+\.jsonl$/;
const COPILOT_EVENTS = /(?:^|\/)session-state\/([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\/events\.jsonl$/;

/** The hosts whose transcripts mining/hosts/ reads (Claude Code's are mined segment by segment). */
export const TRANSCRIPT_HOSTS = ['gemini-cli', 'codex', 'copilot'] as const satisfies readonly HostName[];
export type TranscriptHost = (typeof TRANSCRIPT_HOSTS)[number];

export function hostOfTranscriptPath(path: string): HostName {
  if (CODEX_ROLLOUT.test(path)) return 'codex';
  if (GEMINI_CHAT.test(path)) return 'gemini-cli';
  if (COPILOT_EVENTS.test(path)) return 'copilot';
  return 'claude-code';
}

/** A Codex rollout's session id, from its name. */
export function codexSessionIdOfPath(path: string): string | null {
  return CODEX_ROLLOUT.exec(path)?.[1] ?? null;
}

/** A Copilot CLI session log's session id, from its folder's name. */
export function copilotSessionIdOfPath(path: string): string | null {
  return COPILOT_EVENTS.exec(path)?.[1] ?? null;
}

const join = (a: string, b: string) => (a.endsWith('/') ? `${a}${b}` : `${a}/${b}`);

/** Each host's transcript root: Gemini's tmp folder, Codex's sessions folder, Copilot's session-state folder. */
export function defaultHostTranscriptRoot(host: TranscriptHost, env: Record<string, string | undefined>, homeDir: string): string {
  if (host === 'gemini-cli') return join(join(homeDir, '.gemini'), 'tmp');
  if (host === 'copilot') {
    const copilotHome = env.COPILOT_HOME?.trim();
    return join(copilotHome ? copilotHome : join(homeDir, '.copilot'), 'session-state');
  }
  const codexHome = env.CODEX_HOME?.trim();
  return join(codexHome ? codexHome : join(homeDir, '.codex'), 'sessions');
}

/**
 * Every one of those hosts' default folders, as `memtrace mine` lists them without --host: what
 * `memtrace worker --watch` lists beside Claude Code's projects folder (a host not installed here
 * has no folder, which is no problem).
 */
export function defaultHostTranscriptRoots(env: Record<string, string | undefined>, homeDir: string): Array<{ host: TranscriptHost; dir: string }> {
  return TRANSCRIPT_HOSTS.map((host) => ({ host, dir: defaultHostTranscriptRoot(host, env, homeDir) }));
}
