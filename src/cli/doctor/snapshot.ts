import type { InstallHost } from '../../install/host-hooks.js';
import type { StoreInspection } from '../../store/index.js';

/**
 * Everything `memtrace doctor` looks at, gathered once at the edge (gather.ts) so that every check
 * is a pure function of it. A part that could not be read says why instead of throwing: a bad or
 * partial install is a finding, never a crash.
 */
export interface DoctorSnapshot {
  nowMs: number;
  dataDir: string;
  /** What is wrong with memtrace's variables (the worker would refuse to start). */
  configErrors: string[];
  /** This CLI: the version installed where it runs from. */
  installed: { version: string; packageRoot: string };
  /** The data dir's worker (its lock file), when one holds the lock. */
  worker: { pid: number; port: number | null; version: string | null } | null;
  /** Its open /health, when a worker runs. */
  health: { reachable: true; body: Record<string, unknown> } | { reachable: false; error: string } | null;
  /** DATA_DIR/worker.sock: whether it is there and a connection is taken. */
  socket: { exists: boolean; accepts: boolean; error: string | null };
  store: StoreSnapshot;
  /** Free and total bytes of the data dir's file system; null when unknown. */
  disk: { freeBytes: number; totalBytes: number } | null;
  maxDbBytes: number;
  /** MEMTRACE_OBSERVER_BUDGET_TOKENS as this shell's environment sets it. */
  observerBudgetTokens: number;
  spool: { events: number; unreadable: number; oldestMs: number | null } | { error: string };
  forwarder: ForwarderSnapshot;
  hooks: HostHooksSnapshot[];
  /** OpenCode's plugin and pi's extension: they have no command hooks. */
  inProcess: InProcessFileSnapshot[];
  observer: ObserverSnapshot;
  telemetry: { enabled: boolean; decidedBy: string; reason: string; configError: string | null };
  /** Each shared project's one line (docs/sharing.md), as `share list` says it; empty when none is shared. */
  sharing: Array<{ status: 'ok' | 'warn' | 'fail'; line: string }> | { error: string };
  /** With no worker running: why its last start failed and when hooks try again (DATA_DIR/worker-start.json). */
  startProblem: string | null;
}

/** What the store's own read-only inspection found (src/store/inspect.ts). */
export type StoreSnapshot = StoreInspection;

export interface ForwarderSnapshot {
  /** bin/memtrace-hook in this package: what every installed hook runs. */
  script: { path: string; exists: boolean };
  /** DATA_DIR/bin/hook-<hash of this version's source>. */
  native: { path: string; state: 'ok' | 'missing' | 'not_executable' | 'not_owned' };
  /** DATA_DIR/bin/hook, which the hook commands run first: the build it names, null when there is no link. */
  link: { path: string; target: string | null };
  /** Other builds in DATA_DIR/bin (another version's source). */
  others: string[];
  compilerFound: boolean;
}

export interface HostHooksSnapshot {
  host: 'claude-code' | InstallHost;
  file: string;
  /** The host's CLI (`claude`, `gemini`, `codex`, `copilot`), and whether it is on PATH (an absent host with no hooks is fine). */
  cli: string;
  cliOnPath: boolean;
  state: 'missing' | 'invalid' | 'unreadable' | 'read';
  error: string | null;
  /** memtrace's hook commands found in the file (by host event), how many install writes, and the forwarder script each runs. */
  events: string[];
  expected: number;
  scripts: Array<{ path: string; exists: boolean }>;
}

export interface InProcessFileSnapshot {
  host: 'opencode' | 'pi';
  /** The user's plugin or extension file (where `memtrace install --host` writes without --project). */
  file: string;
  cliOnPath: boolean;
  /** `foreign`: a file by that name that memtrace install did not write. */
  state: 'missing' | 'unreadable' | 'foreign' | 'read';
  error: string | null;
  /** In a file of memtrace's: the Node hook it spools through when no worker answers (and starts the worker with), and whether it is there. */
  memtraceBin: { path: string; exists: boolean } | null;
  /** The memtrace version that wrote it. */
  version: string | null;
}

export interface ObserverSnapshot {
  /** What this shell's environment would choose (`observer: …`), or why it cannot. */
  here: { line: string } | { error: string };
  /** Observer variables set in this shell (names only). */
  envHere: string[];
}
