/**
 * The variables that decide the observer (docs/observer.md#which-observer-runs). A worker reads
 * them once, when it starts; a key set later, in a new agent's or shell's environment, is not
 * seen by it. Only the names of the ones set are ever shown or compared, never a value.
 */
const OBSERVER_ENV_NAMES = [
  'MEMTRACE_PROVIDER',
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'MEMTRACE_MODEL',
  // A Copilot CLI login in the environment (select.ts). GH_TOKEN and GITHUB_TOKEN log it in too,
  // but shells set them for other tools: naming them here would mostly mislead.
  'COPILOT_PROVIDER_BASE_URL',
  'COPILOT_GITHUB_TOKEN',
] as const;

export function observerEnvSet(env: Record<string, string | undefined>): string[] {
  return OBSERVER_ENV_NAMES.filter((name) => (env[name] ?? '').trim() !== '');
}

/** Set here (this shell) but not in the running worker's environment. */
export function unseenByWorker(here: readonly string[], worker: readonly string[]): string[] {
  return here.filter((name) => !worker.includes(name));
}

/** One line for `worker status` and `doctor`: what the worker did not see, and how to apply it. */
export function unseenLine(names: readonly string[]): string {
  return `${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} set here but not in the running worker's environment (it started without ${names.length === 1 ? 'it' : 'them'}); apply: memtrace worker stop && memtrace worker start (from this shell)`;
}
