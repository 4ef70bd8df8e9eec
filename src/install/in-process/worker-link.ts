import type { Builtins } from './builtins.js';
import type { LinkSettings } from './settings.js';
import { postHookEvent } from './socket-post.js';

/**
 * How an in-process plugin (OpenCode) or extension (pi) hands the host's events to memtrace's
 * worker without a process per event and without holding the agent up: each event is queued and
 * delivered in the background, in the order the host fired them, one at a time over the data
 * dir's socket (the hooks' door). The agent waits only where it needs an answer (session start's
 * context), and never longer than the budget.
 *
 * When no worker answers, the event goes where a hook's would: through the Node hook
 * (`memtrace hook --host H <event> --fired-at T`), which redacts and spools it, and at session
 * start starts the worker. A session start's context then comes from the file the worker keeps
 * per directory, read here at once, as the shell forwarder reads it. Whatever is still queued
 * when the host exits is handed to the Node hook synchronously, bounded; a tool call lost past
 * that is still in the host's own transcript for mining.
 */
export interface WorkerLink {
  /**
   * Queues one event (the payload is serialised now: hosts mutate their objects later). Resolves
   * with the worker's reply body ('' when there is none); never rejects.
   */
  send(event: string, payload: unknown, options?: { cwd?: string | null; firedAtMs?: number }): Promise<string>;
  /** Resolves true when everything queued so far is delivered or spooled, false at the timeout. */
  drain(timeoutMs: number): Promise<boolean>;
}

interface Queued {
  event: string;
  body: string;
  firedAtMs: number;
  cwd: string | null;
  resolve(reply: string): void;
}

const SOCKET_NAME = 'worker.sock';
/** A socket address holds about 107 bytes; a longer data dir path is left to the Node hook. */
const SOCKET_PATH_LIMIT = 100;
/** How long the Node hook may take to spool an event before the queue moves on. */
const HANDOFF_TIMEOUT_MS = 30_000;
/** At exit: the most time spent handing leftovers to the Node hook. */
const EXIT_BUDGET_MS = 3_000;

/** Every link's exit flush, run by one handler for the process (a host may load the plugin more than once). */
const exitFlushes = new Set<() => void>();
let exitHandlerSet = false;

export function createWorkerLink(settings: LinkSettings, node: Builtins): WorkerLink {
  const queue: Queued[] = [];
  const idle: Array<() => void> = [];
  let running = false;
  const socketPath = `${settings.dataDir}/${SOCKET_NAME}`;
  const socketUsable = Buffer.byteLength(socketPath) <= SOCKET_PATH_LIMIT;

  const hookArgs = (item: Queued, contextPrinted: boolean) => [
    settings.memtraceBin,
    'hook',
    '--host',
    settings.host,
    item.event,
    '--via',
    'plugin',
    '--fired-at',
    String(Math.round(item.firedAtMs)),
    ...(contextPrinted ? ['--context-printed'] : []),
  ];
  const hookEnv = () => ({ ...settings.env, MEMTRACE_DATA_DIR: settings.dataDir });

  /** The Node hook with the event on its stdin; resolves with what it printed (a session start's context). */
  function handOff(item: Queued, contextPrinted: boolean): Promise<string> {
    return new Promise((resolve) => {
      let out = '';
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(out);
      };
      let child: ReturnType<Builtins['childProcess']['spawn']>;
      try {
        child = node.childProcess.spawn(settings.node, hookArgs(item, contextPrinted), { stdio: ['pipe', 'pipe', 'ignore'], env: hookEnv(), detached: true });
      } catch {
        finish();
        return;
      }
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        finish();
      }, HANDOFF_TIMEOUT_MS);
      (timer as { unref?: () => void }).unref?.();
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
      });
      child.on('error', finish);
      child.on('close', finish);
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(item.body);
    });
  }

  /** The context the worker kept for this directory (what the shell forwarder prints with no worker). */
  function keptContext(cwd: string | null): string | null {
    if (!cwd?.startsWith('/') || cwd.split('/').includes('..')) return null;
    try {
      if (node.fs.statSync(settings.dataDir).uid !== process.getuid?.()) return null;
      return node.fs.readFileSync(`${settings.dataDir}/context${cwd}/session-start.json`, 'utf8');
    } catch {
      return null;
    }
  }

  async function deliver(item: Queued): Promise<void> {
    const route = `/hook/${settings.host}/${encodeURIComponent(item.event)}`;
    const startedMs = item.event === startEvent(settings.host) ? item.firedAtMs : Date.now();
    const result = socketUsable ? await postHookEvent(node.net, socketPath, route, item.body, { timeoutMs: settings.deliveryTimeoutMs, startedMs }) : null;
    if (result?.ok && (result.status < 300 || result.status === 400)) {
      // 400: the worker could not read it and kept it aside itself; nothing to spool.
      item.resolve(result.status < 300 ? result.body : '');
      return;
    }
    const kept = item.event === startEvent(settings.host) ? keptContext(item.cwd) : null;
    if (kept !== null) item.resolve(kept);
    const printed = await handOff(item, kept !== null);
    item.resolve(printed);
  }

  async function run(): Promise<void> {
    if (running) return;
    running = true;
    try {
      for (let item = queue.shift(); item; item = queue.shift()) {
        try {
          await deliver(item);
        } catch {
          item.resolve('');
        }
      }
    } finally {
      running = false;
      for (const wake of idle.splice(0)) wake();
    }
  }

  // Leftovers at exit: the host is going, so only synchronous work runs; each is spooled by the Node hook.
  exitFlushes.add(() => {
    const deadline = Date.now() + EXIT_BUDGET_MS;
    for (let item = queue.shift(); item && Date.now() < deadline; item = queue.shift()) {
      try {
        node.childProcess.spawnSync(settings.node, hookArgs(item, true), {
          input: item.body,
          env: hookEnv(),
          stdio: ['pipe', 'ignore', 'ignore'],
          timeout: Math.max(1, deadline - Date.now()),
        });
      } catch {
        // Nothing more can be done in an exiting process: mining reads the call from the transcript.
      }
    }
  });
  if (!exitHandlerSet) {
    exitHandlerSet = true;
    process.once('exit', () => {
      for (const flush of exitFlushes) flush();
    });
  }

  return {
    send(event, payload, options = {}) {
      if (settings.disabled) return Promise.resolve('');
      let body: string;
      try {
        body = JSON.stringify(payload);
      } catch {
        return Promise.resolve('');
      }
      return new Promise<string>((resolve) => {
        let answered = false;
        queue.push({
          event,
          body,
          firedAtMs: options.firedAtMs ?? Date.now(),
          cwd: options.cwd ?? null,
          resolve: (reply) => {
            if (answered) return;
            answered = true;
            resolve(reply);
          },
        });
        void run();
      });
    },
    drain(timeoutMs) {
      if (!running && queue.length === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        (timer as { unref?: () => void }).unref?.();
        idle.push(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    },
  };
}

/** The host event that starts a session (the one whose reply is the context). */
function startEvent(host: LinkSettings['host']): string {
  return host === 'opencode' ? 'session.created' : 'session_start';
}
