/**
 * The agent hosts memtrace has an adapter for, and the platforms a session or a rollup can name
 * (a closed enum: anything else is `other`). A vocabulary with no imports, so telemetry, the store
 * and the fleet can all read it.
 */
export const HOSTS = ['claude-code', 'gemini-cli', 'codex', 'opencode', 'copilot', 'pi'] as const;
export type HostName = (typeof HOSTS)[number];

export const PLATFORMS = [...HOSTS, 'other'] as const;
export type Platform = (typeof PLATFORMS)[number];

export function isHostName(value: unknown): value is HostName {
  return typeof value === 'string' && (HOSTS as readonly string[]).includes(value);
}

/** A platform name from anywhere (a hook body, an old row) as the closed enum. */
export function platformOf(value: unknown): Platform {
  return isHostName(value) ? value : 'other';
}
