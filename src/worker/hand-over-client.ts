import path from 'node:path';
import type { Clock } from '../clock.js';
import { acquireWorkerLock, SOCKET_PATH_LIMIT, WORKER_SOCKET, type WorkerInfo, type WorkerLock } from '../data-dir/index.js';
import { postOverSocket } from '../hook/socket-request.js';
import type { Logger } from '../log.js';
import { acquireLockTakingOver } from './lock-take-over.js';

/** The edges lock-take-over.ts is given: the running worker asked over the data dir's socket, and its /health. */
const ASK_TIMEOUT_MS = 5_000;

/** The data dir's lock for a worker described by `info`, taken over from an older worker holding it. */
export async function takeDataDir(dataDir: string, info: WorkerInfo, deps: { log: Logger; waitMs: number; clock: Clock }): Promise<WorkerLock> {
  const { lock } = await acquireLockTakingOver({
    dataDir,
    version: info.version,
    log: deps.log,
    waitMs: deps.waitMs,
    acquire: () => acquireWorkerLock(dataDir, info),
    askHandOver: () => askHandOver(dataDir, info.version),
    inFlight: holderInFlight,
    terminate: (pid) => process.kill(pid, 'SIGTERM'),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    nowMs: () => deps.clock.now(),
  });
  return lock;
}

/** POST /worker/hand-over to the worker holding `dataDir`, for a worker of `version`. */
export async function askHandOver(dataDir: string, version: string): Promise<'accepted' | 'refused' | 'no_route' | 'unreachable'> {
  const full = path.join(dataDir, WORKER_SOCKET);
  const body = Buffer.from(JSON.stringify({ version }));
  let asked: ReturnType<typeof postOverSocket>;
  if (Buffer.byteLength(full) <= SOCKET_PATH_LIMIT) asked = postOverSocket(full, '/worker/hand-over', {}, body, Date.now() + ASK_TIMEOUT_MS);
  else {
    // Too long for a socket address: connect(2) resolves a relative name against the working directory, synchronously.
    const cwd = process.cwd();
    process.chdir(dataDir);
    try {
      asked = postOverSocket(WORKER_SOCKET, '/worker/hand-over', {}, body, Date.now() + ASK_TIMEOUT_MS);
    } finally {
      process.chdir(cwd);
    }
  }
  const answer = await asked;
  if (!answer.ok) return 'unreachable';
  if (answer.status === 202) return 'accepted';
  if (answer.status === 404) return 'no_route';
  return 'refused';
}

/** Observer calls the holder has in flight, from its open /health; null when it does not answer. */
async function holderInFlight(holder: WorkerInfo): Promise<number | null> {
  if (!holder.port) return null;
  try {
    const res = await fetch(`http://127.0.0.1:${holder.port}/health`, { signal: AbortSignal.timeout(2_000) });
    const body = (await res.json()) as { in_flight?: unknown };
    return typeof body.in_flight === 'number' ? body.in_flight : null;
  } catch {
    return null;
  }
}
