/**
 * What `memtrace install` writes into the plugin or extension file (src/install/in-process-file.ts),
 * and how the file finds the worker when it runs: through the host's environment first, as a hook
 * does (MEMTRACE_DATA_DIR, MEMTRACE_HOOK_TIMEOUT_MS), then what install pinned, then the defaults.
 */
export interface InstalledSettings {
  /** Where memtrace was installed from: the Node hook (`bin/memtrace.cjs`) and the node that runs it. */
  memtraceBin: string;
  node: string;
  /** MEMTRACE_DATA_DIR as it was when install ran, when it was set. */
  dataDir?: string;
  /** memtrace's version that wrote the file. */
  version: string;
}

export interface LinkSettings {
  host: 'opencode' | 'pi';
  dataDir: string;
  memtraceBin: string;
  node: string;
  /** How long the agent may wait for session start's context (and, at exit, for the queue). */
  budgetMs: number;
  /**
   * How long a delivery may wait for the worker's answer. Nothing of the agent waits on it, so it
   * is not the hook budget: a worker slow under load would otherwise see the event twice, live and
   * again from the spool (measured at load 16: one extra event in two of three OpenCode sessions
   * with the 2 s budget).
   */
  deliveryTimeoutMs: number;
  /** The observer's own CLI session (memtrace running the host headless): nothing is captured. */
  disabled: boolean;
  /** The host's environment, passed on to the Node hook and the MCP server when they run. */
  env: Record<string, string | undefined>;
}

const DEFAULT_BUDGET_MS = 2_000;
const DELIVERY_TIMEOUT_MS = 15_000;

export function linkSettings(
  host: LinkSettings['host'],
  installed: InstalledSettings,
  env: Record<string, string | undefined>,
  overrides: Partial<Pick<LinkSettings, 'deliveryTimeoutMs'>> = {},
): LinkSettings {
  const home = env.HOME ?? '';
  let dataDir = env.MEMTRACE_DATA_DIR?.trim() || installed.dataDir || `${home}/.memtrace`;
  if (dataDir === '~') dataDir = home;
  else if (dataDir.startsWith('~/')) dataDir = `${home}/${dataDir.slice(2)}`;
  const budget = Number(env.MEMTRACE_HOOK_TIMEOUT_MS);
  const budgetMs = Number.isFinite(budget) && budget > 0 ? budget : DEFAULT_BUDGET_MS;
  return {
    host,
    dataDir,
    memtraceBin: installed.memtraceBin,
    node: installed.node,
    budgetMs,
    deliveryTimeoutMs: overrides.deliveryTimeoutMs ?? Math.max(budgetMs, DELIVERY_TIMEOUT_MS),
    disabled: Boolean(env.MEMTRACE_OBSERVER_SESSION),
    env,
  };
}
