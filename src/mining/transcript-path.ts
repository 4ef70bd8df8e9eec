/**
 * Where Claude Code keeps transcripts (CLAUDE-CODE.md): `<config>/projects/<project>/<session-id>.jsonl`,
 * `<project>` being the cwd with every non-alphanumeric character replaced by '-'. Pure.
 */
const SESSION_FILE = /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$/;
const SAFE_SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
/** Claude Code cuts longer folder names and appends a hash we cannot rebuild: no guess then. */
const PROJECT_DIR_MAX = 200;

/** The session id of a transcript found by listing (a UUID basename), or null for other files. */
export function sessionIdOfListedFile(basename: string): string | null {
  return SESSION_FILE.exec(basename)?.[1] ?? null;
}

/** The session id a session's folder is named by (`<session-id>/`, holding its subagents), or null. */
export function sessionIdOfListedDir(basename: string): string | null {
  return sessionIdOfListedFile(`${basename}.jsonl`);
}

/** The session id of a file the user named (`--file`): any safe basename ending in .jsonl. */
export function sessionIdOfNamedFile(basename: string): string | null {
  if (!basename.endsWith('.jsonl')) return null;
  const id = basename.slice(0, -'.jsonl'.length);
  return SAFE_SESSION_ID.test(id) ? id : null;
}

/** The projects folder: `$CLAUDE_CONFIG_DIR/projects` when set, else `~/.claude/projects`. */
export function defaultProjectsDir(env: Record<string, string | undefined>, homeDir: string): string {
  const configDir = env.CLAUDE_CONFIG_DIR?.trim();
  return configDir ? joinPath(configDir, 'projects') : joinPath(joinPath(homeDir, '.claude'), 'projects');
}

function projectDirName(cwd: string): string | null {
  const name = cwd.replace(/[^A-Za-z0-9]/g, '-');
  return name.length > PROJECT_DIR_MAX ? null : name;
}

/**
 * The transcript of a session: the path the hooks reported (`transcript_path`) wins; otherwise
 * a guess from the cwd under the projects folder; null when neither is possible.
 */
export function transcriptPathFor(input: { sessionId: string; transcriptPath?: string | null; cwd?: string | null; projectsDir: string }): string | null {
  if (typeof input.transcriptPath === 'string' && input.transcriptPath.endsWith('.jsonl')) return input.transcriptPath;
  if (!SAFE_SESSION_ID.test(input.sessionId) || !input.cwd) return null;
  const dir = projectDirName(input.cwd);
  return dir === null ? null : joinPath(joinPath(input.projectsDir, dir), `${input.sessionId}.jsonl`);
}

function joinPath(a: string, b: string): string {
  return a.endsWith('/') ? `${a}${b}` : `${a}/${b}`;
}
