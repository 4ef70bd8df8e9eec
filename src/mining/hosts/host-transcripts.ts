/**
 * Where Gemini CLI, Codex, OpenCode, Copilot CLI and pi keep their transcripts (AGENT-HOSTS.md
 * §2.6, §3.6; AGENT-HOSTS-2.md §2.6, §3.6, §4.5), and which host wrote a transcript, from its path. Pure.
 * - Gemini: `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl` (the full session id is
 *   in the file's first line; `<project>/.project_root` holds the project's path).
 * - Codex: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<session uuid>.jsonl`.
 * - OpenCode: one SQLite store, `$XDG_DATA_HOME/opencode/opencode.db` (`~/.local/share/…`); a
 *   session in it is named `<store>#<session id>` (opencode-store.ts).
 * - Copilot CLI: `$COPILOT_HOME/session-state/<session uuid>/events.jsonl` (`~/.copilot`).
 * - pi: `~/.pi/agent/sessions/--<cwd>--/<time>_<session uuid>.jsonl`.
 */
import type { HostName } from '../../hosts/platforms.js';

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const CODEX_ROLLOUT = new RegExp(`(?:^|/)rollout-[^/]*-(${UUID})\\.jsonl$`);
const GEMINI_CHAT = /(?:^|\/)chats\/session-[^/]+\.jsonl$/;
const COPILOT_EVENTS = new RegExp(`(?:^|/)session-state/(${UUID})/events\\.jsonl$`);
const PI_SESSION = new RegExp(`(?:^|/)\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-\\d{3}Z_(${UUID})\\.jsonl$`);
const OPENCODE_SESSION = /^(.+)#(ses_[A-Za-z0-9]{1,128})$/;

/** The hosts whose transcripts mining/hosts/ reads (Claude Code's are mined segment by segment). */
export const TRANSCRIPT_HOSTS = ['gemini-cli', 'codex', 'opencode', 'copilot', 'pi'] as const satisfies readonly Exclude<HostName, 'claude-code'>[];
export type TranscriptHost = (typeof TRANSCRIPT_HOSTS)[number];

export function hostOfTranscriptPath(path: string): HostName {
  if (OPENCODE_SESSION.test(path)) return 'opencode';
  if (CODEX_ROLLOUT.test(path)) return 'codex';
  if (GEMINI_CHAT.test(path)) return 'gemini-cli';
  if (COPILOT_EVENTS.test(path)) return 'copilot';
  if (PI_SESSION.test(path)) return 'pi';
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

/** A pi session file's session id, from its name. */
export function piSessionIdOfPath(path: string): string | null {
  return PI_SESSION.exec(path)?.[1] ?? null;
}

/** The name of one session in an OpenCode store. */
export function openCodeSessionRef(store: string, sessionId: string): string {
  return `${store}#${sessionId}`;
}

export function parseOpenCodeSessionRef(ref: string): { store: string; sessionId: string } | null {
  const match = OPENCODE_SESSION.exec(ref);
  return match ? { store: match[1]!, sessionId: match[2]! } : null;
}

const join = (a: string, b: string) => (a.endsWith('/') ? `${a}${b}` : `${a}/${b}`);

/**
 * Each host's transcript root: Gemini's tmp folder, Codex's sessions folder, OpenCode's data
 * folder (its stores; `OPENCODE_DB` names one store), Copilot's session-state folder, pi's sessions
 * folder.
 */
export function defaultHostTranscriptRoot(host: TranscriptHost, env: Record<string, string | undefined>, homeDir: string): string {
  switch (host) {
    case 'gemini-cli':
      return join(join(homeDir, '.gemini'), 'tmp');
    case 'codex': {
      const codexHome = env.CODEX_HOME?.trim();
      return join(codexHome ? codexHome : join(homeDir, '.codex'), 'sessions');
    }
    case 'opencode': {
      const dataHome = env.XDG_DATA_HOME?.trim();
      const dataDir = join(dataHome?.startsWith('/') ? dataHome : join(homeDir, '.local/share'), 'opencode');
      const db = env.OPENCODE_DB?.trim();
      if (db && db !== ':memory:') return db.startsWith('/') ? db : join(dataDir, db);
      return dataDir;
    }
    case 'copilot': {
      const copilotHome = env.COPILOT_HOME?.trim();
      return join(copilotHome ? copilotHome : join(homeDir, '.copilot'), 'session-state');
    }
    case 'pi': {
      const sessions = env.PI_CODING_AGENT_SESSION_DIR?.trim();
      if (sessions) return sessions;
      const agentDir = env.PI_CODING_AGENT_DIR?.trim();
      return join(agentDir ? agentDir : join(homeDir, '.pi/agent'), 'sessions');
    }
  }
}

/**
 * Every one of those hosts' default folders, as `memtrace mine` lists them without --host: what
 * `memtrace worker --watch` lists beside Claude Code's projects folder (a host not installed here
 * has no folder, which is no problem).
 */
export function defaultHostTranscriptRoots(env: Record<string, string | undefined>, homeDir: string): Array<{ host: TranscriptHost; dir: string }> {
  return TRANSCRIPT_HOSTS.map((host) => ({ host, dir: defaultHostTranscriptRoot(host, env, homeDir) }));
}
