import type { Hono } from 'hono';
import type { Clock } from '../clock.js';
import type { WorkerConfig } from '../config.js';
import { SOCKET_PATH_LIMIT, WORKER_SOCKET, type WorkerLock } from '../data-dir/index.js';
import { adapterFor, isHostName } from '../hosts/index.js';
import { listenLoopbackOrAny, listenUnixSocket } from '../http-edge/index.js';
import type { Logger } from '../log.js';
import { createHookApp } from '../server/hook-app.js';
import { nodeTimers } from '../timers.js';
import type { Store } from '../store/index.js';
import { createBusySpill } from './busy-spill.js';
import type { HookAccounting } from './hook-accounting.js';
import { hookDoor } from './hook-door.js';
import type { Lifecycle } from './lifecycle.js';
import { createMcpDoor } from './mcp-door.js';
import { createSpoolReplayer } from './spool-replay.js';
import { SocketListenError } from './start-failure.js';
import type { Services } from './worker-services.js';

const START_REPLAY_EVERY_MS = 2_000;
const START_REPLAY_FOR_MS = 60_000;

export interface WorkerDoorsDeps {
  config: Pick<WorkerConfig, 'dataDir' | 'port' | 'portIsDefault'>;
  env: Record<string, string | undefined>;
  app: Hono;
  services: Pick<Services, 'hostIntake' | 'replayIntake'>;
  hooks: HookAccounting;
  lifecycle: Lifecycle;
  store: Store;
  lock: WorkerLock;
  token: string;
  /** The HTTP API's port: the configured one until the server listens. */
  port(): number;
  /** The HTTP API listens: on `port`, or on another when the one wanted was taken. */
  listening(port: number, wanted: number | null): void;
  recordCounters(event: string, dims: Readonly<Record<string, string>>, increments: Readonly<Record<string, number>>, nowMs: number): void;
  reportError(error: unknown): void;
  clock: Clock;
  log: Logger;
}

/**
 * The worker's ways in, opened in order: the spool of events that came while no worker ran
 * (replayed first, to keep their order), the HTTP API on loopback, then the data dir's socket,
 * which hooks and MCP sessions share; then the spool once more, and often for a minute, for the
 * hooks that fired while this worker started.
 */
export async function openWorkerDoors(deps: WorkerDoorsDeps) {
  const { config, log, clock } = deps;
  const spool = createSpoolReplayer({
    dataDir: config.dataDir,
    intake: deps.services.replayIntake,
    app: deps.app,
    port: deps.port,
    token: deps.token,
    log,
    nowMs: () => clock.now(),
    replayed: (entry, nowMs) =>
      deps.hooks.replayed(entry, nowMs, (event) => adapterFor(isHostName(entry.host) ? entry.host : 'claude-code')?.kindOf(event) ?? null),
    unreadable: () => deps.hooks.unreadable(),
    held: () => deps.lifecycle.takeOver.holding(),
  });
  const replay = spool.replay;
  const spill = createBusySpill({ replay, timers: nodeTimers, log });
  let lastHookMs = Number.NEGATIVE_INFINITY;
  await replay();
  // Only a port the user chose is theirs to insist on: the default one may be another user's worker.
  const server = await listenLoopbackOrAny(deps.app, config.port, config.portIsDefault);
  deps.listening(server.port, server.wanted);
  if (server.wanted !== null)
    log.warn(
      `port ${server.wanted} is taken (another user's worker or another program): the HTTP API listens on 127.0.0.1:${server.port}; hooks and MCP use ${config.dataDir}/${WORKER_SOCKET}`,
    );
  deps.lock.update({ port: server.port, ...(server.wanted === null ? {} : { port_wanted: server.wanted }) });
  const mcp = createMcpDoor({ store: deps.store, recordCounters: deps.recordCounters, clock, log, env: deps.env });
  const hookSocket = await listenUnixSocket(
    createHookApp(
      hookDoor({
        dataDir: config.dataDir,
        intake: deps.services.hostIntake,
        hooks: deps.hooks,
        log,
        now: () => clock.now(),
        reportError: deps.reportError,
        noticeBin: deps.lifecycle.takeOver.noticeBin,
        handOver: deps.lifecycle.takeOver.requested,
        holding: deps.lifecycle.takeOver.holding,
        spill,
        heard: (nowMs) => {
          lastHookMs = nowMs;
        },
      }),
    ),
    config.dataDir,
    WORKER_SOCKET,
    // The MCP server shares the hooks' socket: same identity check, no token, no TCP port.
    { pathLimit: SOCKET_PATH_LIMIT, upgrade: mcp.upgrade },
  ).catch(async (error) => {
    await server.close();
    throw new SocketListenError(`${config.dataDir}/${WORKER_SOCKET}`, error);
  });
  // A hook that found no socket a moment ago spooled its event: take it now rather than a tick later.
  await replay();
  // Hooks that fired while this worker started (or took over) are still writing their spool
  // entries (a detached Node hook on a busy machine takes seconds): look often for a minute.
  spool.replayOften(START_REPLAY_EVERY_MS, START_REPLAY_FOR_MS);
  return {
    server,
    mcp,
    replay,
    /** When the last hook came (the worker's clock), or -Infinity. */
    lastHookMs: () => lastHookMs,
    /** Closes the doors: later hooks find no socket and spool their events. */
    async close(): Promise<void> {
      spool.stop();
      spill.stop();
      await hookSocket.close();
      await server.close();
    },
  };
}
