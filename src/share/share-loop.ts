import { backoffDelayMs, type BackoffSchedule } from '../backoff.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { RedactionCounts } from '../redaction/index.js';
import type { Store } from '../store/index.js';
import type { Timers } from '../timers.js';
import { classifyShareFailure, ShareConfigError, type ShareFailure } from './failure.js';
import { connectShare, type ShareConnection, type ShareTimeouts } from './pg-client.js';
import { NOTIFY_CHANNEL } from './remote-schema.js';
import { openShareDatabase, targetOf, type OpenShareDatabase } from './share-database.js';
import { createShareLedger, type ShareProjectState } from './share-ledger.js';
import { failureIncrements, syncIncrements } from './share-rollup.js';
import { readShareUrls, shareUrlsStamp } from './share-urls.js';
import { syncProject } from './sync.js';

/**
 * The worker's background sync (docs/sharing.md#in-the-background). Every `checkMs` it looks at
 * the local queue (and at once when woken: a turn stored memory), but only every `idleCheckMs`
 * while no project is shared (each look wakes the whole worker, and most users never share); it
 * pulls every `pollMs` — the truth — and as soon as another member's push is announced
 * (LISTEN/NOTIFY, the wake-up). It follows `share add` / `share remove` without a restart: the
 * list of shared projects is re-read on every check. Nothing here is on a hook's path: all
 * database I/O is asynchronous, and a local write is one short transaction per chunk. A database
 * that is down, refusing or silent costs a failed attempt after its timeouts, then a backoff; the
 * queue keeps everything meanwhile.
 */
export interface ShareLoopConfig {
  dataDir: string;
  env: Record<string, string | undefined>;
  homeDir: string;
  pollMs: number;
  checkMs: number;
  /** The pace while the ledger lists no shared project: how soon a `share add` is taken up. */
  idleCheckMs: number;
  backoff: BackoffSchedule;
  timeouts?: ShareTimeouts;
}

export const DEFAULT_SHARE_LOOP = { pollMs: 5_000, checkMs: 1_000, idleCheckMs: 10_000, backoff: { baseMs: 2_000, capMs: 120_000 } } as const;

/** MEMTRACE_SHARE_POLL_MS: how often the log is read with no notification (500 ms to 1 h); the default, and a problem, otherwise. */
export function sharePollMs(env: Record<string, string | undefined>): { pollMs: number; problem: string | null } {
  const raw = env.MEMTRACE_SHARE_POLL_MS;
  if (raw === undefined || raw === '') return { pollMs: DEFAULT_SHARE_LOOP.pollMs, problem: null };
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 500 || n > 3_600_000)
    return {
      pollMs: DEFAULT_SHARE_LOOP.pollMs,
      problem: `MEMTRACE_SHARE_POLL_MS=${raw} must be whole milliseconds from 500 to 3600000; using ${DEFAULT_SHARE_LOOP.pollMs}`,
    };
  return { pollMs: n, problem: null };
}

export interface ShareLoopDeps {
  store: Store;
  clock: Clock;
  timers: Timers;
  log: Logger;
  recordCounters(event: string, dims: Readonly<Record<string, string>>, increments: Readonly<Record<string, number>>, nowMs: number): void;
  reportRedactions(counts: RedactionCounts, nowMs: number): void;
}

export interface ShareLoop {
  /** Something was stored: look at the queue now. */
  wake(): void;
  /** Resolves when the pass running now (if any) is over. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

interface Link {
  url: string | null;
  database: OpenShareDatabase | null;
  listener: ShareConnection | null;
  failures: number;
  nextAttemptAt: number;
  lastPullAt: number;
  pullDue: boolean;
  lastFailure: string | null;
}

export function startShareLoop(config: ShareLoopConfig, deps: ShareLoopDeps): ShareLoop {
  const { clock, log } = deps;
  const ledger = createShareLedger(deps.store.db);
  const links = new Map<string, Link>();
  const context = { env: config.env, homeDir: config.homeDir, ...(config.timeouts ? { timeouts: config.timeouts } : {}) };
  const machine = ledger.machineId();
  let stamp = '';
  let urls = new Map<string, string>();
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  let timer: { cancel(): void } | null = null;

  const closeLink = async (link: Link) => {
    const { database, listener } = link;
    link.database = null;
    link.listener = null;
    // Both closes are bounded: a silent server never holds the worker's shutdown.
    await Promise.all([database?.connection.close(), listener?.close()]);
  };

  /** The shared projects now, from the ledger and share.json; links of removed projects are closed. */
  const reconcile = (): ShareProjectState[] => {
    const current = shareUrlsStamp(config.dataDir);
    if (current !== stamp) {
      stamp = current;
      urls = readShareUrls(config.dataDir);
    }
    const states = ledger.list();
    const wanted = new Set(states.map((s) => s.project));
    for (const [project, link] of links) {
      if (!wanted.has(project) || link.url !== (urls.get(project) ?? null)) {
        links.delete(project);
        void closeLink(link);
      }
    }
    for (const state of states) {
      if (!links.has(state.project))
        links.set(state.project, {
          url: urls.get(state.project) ?? null,
          database: null,
          listener: null,
          failures: 0,
          nextAttemptAt: 0,
          lastPullAt: Number.NEGATIVE_INFINITY,
          pullDue: true,
          lastFailure: null,
        });
    }
    return states;
  };

  const listen = async (link: Link, state: ShareProjectState) => {
    if (link.listener !== null || link.url === null) return;
    // Its LISTEN is a query like any other: bounded, so a server that stops answering cannot hold the pass.
    const connection = await connectShare(targetOf(link.url, context), context);
    const client = connection.client;
    client.on('notification', (message) => {
      if (message.channel === NOTIFY_CHANNEL && message.payload === state.remoteProject) {
        link.pullDue = true;
        wake();
      }
    });
    const lost = () => {
      if (link.listener === connection) {
        link.listener = null;
        void connection.close();
      }
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
    } catch (error) {
      await connection.close();
      throw error;
    }
    link.listener = connection;
  };

  const failed = (link: Link, state: ShareProjectState, error: unknown, nowMs: number) => {
    const failure: ShareFailure = classifyShareFailure(error);
    ledger.failed(state.project, failure, nowMs);
    deps.recordCounters('share_rollup', { trigger: 'worker' }, failureIncrements(failure.class), nowMs);
    link.nextAttemptAt = nowMs + backoffDelayMs(config.backoff, link.failures);
    link.failures += 1;
    if (link.lastFailure !== failure.message) log.warn('share: sync failed; records stay queued', { database: state.databaseDisplay, ...failure });
    link.lastFailure = failure.message;
    void closeLink(link);
  };

  const syncOne = async (link: Link, state: ShareProjectState) => {
    const nowMs = clock.now();
    if (nowMs < link.nextAttemptAt) return;
    const pull = link.pullDue || nowMs - link.lastPullAt >= config.pollMs;
    if (!pull && state.pending === 0) return;
    try {
      if (link.url === null) throw new ShareConfigError('no connection URL for this project in DATA_DIR/share.json; run memtrace share add again');
      link.database ??= await openShareDatabase(link.url, context);
      await listen(link, state).catch((error) => log.debug('share: no notifications for now; polling', { error: String(error) }));
      link.pullDue = false;
      const outcome = await syncProject({ store: deps.store, ledger, database: link.database, machine, nowMs: () => clock.now() }, state, { push: true, pull });
      if (pull) link.lastPullAt = nowMs;
      if (link.failures > 0) log.info('share: syncing again', { database: state.databaseDisplay });
      link.failures = 0;
      link.lastFailure = null;
      deps.recordCounters('share_rollup', { trigger: 'worker' }, syncIncrements(outcome), clock.now());
      deps.reportRedactions(outcome.redactions, clock.now());
      if (outcome.pushed + outcome.pulled + outcome.withdrawn + outcome.removedByOwner > 0)
        log.info('share: synced', {
          database: state.databaseDisplay,
          pushed: outcome.pushed,
          pulled: outcome.pulled,
          withdrawn: outcome.withdrawn,
          removed_by_owner: outcome.removedByOwner,
          refused: outcome.refused,
        });
    } catch (error) {
      failed(link, state, error, clock.now());
    }
  };

  const pass = async () => {
    do {
      again = false;
      let states: ShareProjectState[];
      try {
        states = reconcile();
      } catch (error) {
        log.warn('share: could not read the shared projects', { error: String(error) });
        return;
      }
      for (const state of states) {
        if (stopped) return;
        const link = links.get(state.project);
        if (link) await syncOne(link, state);
      }
    } while (again && !stopped);
  };

  const schedule = () => {
    if (stopped) return;
    timer?.cancel();
    // reconcile() keeps a link per shared project: none, nothing to sync yet.
    timer = deps.timers.setTimeout(() => run(), links.size > 0 ? config.checkMs : config.idleCheckMs);
  };

  const run = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pass()
      .catch((error) => log.warn('share: pass failed', { error: String(error) }))
      .finally(() => {
        running = null;
        // A wake that came after the pass's last look (a pass with nothing to await ends in one
        // step) would otherwise wait for the next timer.
        if (again) run();
        else schedule();
      });
  };

  const wake = () => run();
  run();

  return {
    wake,
    idle: async () => {
      while (running) await running;
    },
    async stop() {
      stopped = true;
      timer?.cancel();
      const current = running;
      if (current) await Promise.race([current, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      await Promise.all([...links.values()].map(closeLink));
      links.clear();
    },
  };
}
