/**
 * The observer session's environment: the worker's own (which is the agent host's, when a hook
 * started the worker), so the CLI finds the user's login however they set it up, minus memtrace's
 * own variables, plus the marker every memtrace hook and intake honours (no recursion) and what
 * the CLI needs for an isolated call. memtrace reads no credential: it passes the environment on.
 */
const OBSERVER_SESSION_MARKER = 'MEMTRACE_OBSERVER_SESSION';

export function observerEnv(base: Readonly<Record<string, string | undefined>>, extra: Readonly<Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value === undefined || key.startsWith('MEMTRACE_')) continue;
    env[key] = value;
  }
  return { ...env, ...extra, [OBSERVER_SESSION_MARKER]: '1' };
}
