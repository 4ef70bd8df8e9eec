import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { dataDirFromEnv, loadWorkerConfig } from '../../config.js';
import {
  listSpool,
  readStartState,
  readWorkerInfo,
  runningWorker,
  startProblemLine,
  SOCKET_PATH_LIMIT,
  WORKER_SOCKET,
  type WorkerInfo,
} from '../../data-dir/index.js';
import { findPackageRoot, HOOK_FORWARDER, NATIVE_FORWARDER_LINK, NATIVE_FORWARDER_SOURCE, nativeForwarderName } from '../../install/index.js';
import { chooseObserver } from '../../providers/select.js';
import { findOnPath } from '../../providers/cli/which.js';
import { observerEnvSet } from '../../providers/observer-env.js';
import { projectShareStatus, readShareStatus } from '../../share/index.js';
import { inspectStore, SqliteDriverError } from '../../store/index.js';
import { readTelemetryConfig } from '../../telemetry/config-file.js';
import { resolveConsent } from '../../telemetry/consent.js';
import { APP_VERSION } from '../../version.js';
import type { CliIO } from '../command.js';
import { workerHealth } from '../worker-health.js';
import { gatherHooks } from './gather-hooks.js';
import { gatherInProcess } from './gather-in-process.js';
import type { DoctorSnapshot, ForwarderSnapshot } from './snapshot.js';

/** The edge of `memtrace doctor`: reads files, the lock, /health, the socket and the store, read-only. */
export async function gatherSnapshot(io: CliIO, nowMs: number): Promise<DoctorSnapshot> {
  const home = io.env.HOME || os.homedir();
  const loaded = loadWorkerConfig(io.env, home);
  const dataDir = loaded.ok ? loaded.config.dataDir : dataDirFromEnv(io.env, home);
  const dbFile = path.join(dataDir, 'memtrace.db');
  const packageRoot = safe(() => findPackageRoot(), '(unknown)');
  const worker = workerOf(dataDir);
  const health = worker === null ? null : await healthOf(dataDir);
  const chosen = safe(() => chooseObserver(io.env, { dataDir }), { error: 'the observer settings could not be read' });
  const consent = safe(
    () => {
      const file = readTelemetryConfig(dataDir).state;
      const c = resolveConsent({ env: io.env, file });
      return { enabled: c.enabled, decidedBy: c.layer, reason: c.reason, configError: file.status === 'corrupt' ? file.reason : null };
    },
    { enabled: false, decidedBy: 'unknown' as string, reason: 'could not be read', configError: null as string | null },
  );
  return {
    nowMs,
    dataDir,
    configErrors: loaded.ok ? [] : loaded.errors,
    installed: { version: APP_VERSION, packageRoot },
    worker,
    health,
    socket: await socketOf(dataDir),
    store: inspectStore(dbFile, new Date(nowMs).toISOString().slice(0, 10)),
    disk: diskOf(dataDir),
    maxDbBytes: (loaded.ok ? loaded.config.maxDbMb : 2048) * 1024 * 1024,
    observerBudgetTokens: loaded.ok ? loaded.config.observerBudgetTokens : 1_000_000,
    spool: spoolOf(dataDir),
    forwarder: forwarderOf(dataDir, packageRoot, io.env),
    hooks: gatherHooks(io.env, home, io.cwd),
    inProcess: gatherInProcess(io.env, home),
    observer: { here: 'error' in chosen ? { error: chosen.error } : { line: chosen.choice.describe() }, envHere: observerEnvSet(io.env) },
    telemetry: consent,
    sharing: sharingOf(dataDir, dbFile, nowMs),
    startProblem: worker === null ? safe(() => startProblemLine(readStartState(dataDir), dataDir, nowMs), null) : null,
  };
}

function sharingOf(dataDir: string, dbFile: string, nowMs: number): DoctorSnapshot['sharing'] {
  try {
    return readShareStatus(dataDir, dbFile).map((state) => projectShareStatus(state, nowMs));
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

function safe<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

/** The lock's holder; with a driver that cannot load, the info file and a live pid stand in. */
function workerOf(dataDir: string): DoctorSnapshot['worker'] {
  let info: WorkerInfo | null;
  try {
    info = runningWorker(dataDir);
  } catch (error) {
    if (!(error instanceof SqliteDriverError)) throw error;
    const written = readWorkerInfo(dataDir);
    info = written && alive(written.pid) ? written : null;
  }
  return info === null ? null : { pid: info.pid, port: info.port, version: info.version === 'unknown' ? null : info.version };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function healthOf(dataDir: string): Promise<DoctorSnapshot['health']> {
  const h = await workerHealth(dataDir, 2_000);
  if (h.health) return { reachable: true, body: h.health };
  if (h.status === 'starting') return null;
  return { reachable: false, error: h.error ?? h.status ?? 'no answer' };
}

/** Connects to DATA_DIR/worker.sock (by its name inside the data dir when the full path is too long for a socket address). */
async function socketOf(dataDir: string): Promise<DoctorSnapshot['socket']> {
  const full = path.join(dataDir, WORKER_SOCKET);
  let exists: boolean;
  try {
    exists = fs.statSync(full).isSocket();
  } catch {
    return { exists: false, accepts: false, error: null };
  }
  const socket = connectTo(dataDir, full);
  const result = await new Promise<{ accepts: boolean; error: string | null }>((resolve) => {
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ accepts: false, error: 'no answer within 1 s' });
    }, 1_000);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.end();
      resolve({ accepts: true, error: null });
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ accepts: false, error: error.code ?? error.message });
    });
  });
  return { exists, ...result };
}

/**
 * connect(2) resolves a relative name against the working directory at once, so a data dir whose
 * socket path is too long (in bytes, as the worker bound it) is entered for that call only, never
 * across an await.
 */
function connectTo(dataDir: string, full: string): net.Socket {
  if (Buffer.byteLength(full) <= SOCKET_PATH_LIMIT) return net.connect({ path: full });
  const cwd = process.cwd();
  process.chdir(dataDir);
  try {
    return net.connect({ path: WORKER_SOCKET });
  } finally {
    process.chdir(cwd);
  }
}

function diskOf(dataDir: string): DoctorSnapshot['disk'] {
  // The data dir may not exist yet: its nearest existing parent holds the file system it will use.
  for (let dir = dataDir; ; dir = path.dirname(dir)) {
    try {
      const s = fs.statfsSync(dir);
      return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
    } catch {
      if (path.dirname(dir) === dir) return null;
    }
  }
}

function spoolOf(dataDir: string): DoctorSnapshot['spool'] {
  try {
    const names = listSpool(dataDir);
    const first = names[0];
    const oldest = first === undefined ? null : Number(path.basename(first).split('-')[0]);
    let unreadable = 0;
    try {
      unreadable = fs.readdirSync(path.join(dataDir, 'spool', 'unreadable')).filter((n) => n.endsWith('.json')).length;
    } catch {
      // none set aside
    }
    return { events: names.length, unreadable, oldestMs: oldest !== null && Number.isFinite(oldest) ? oldest : null };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

function forwarderOf(dataDir: string, packageRoot: string, env: Record<string, string | undefined>): ForwarderSnapshot {
  const script = path.join(packageRoot, HOOK_FORWARDER);
  const name = safe(() => nativeForwarderName(fs.readFileSync(path.join(packageRoot, NATIVE_FORWARDER_SOURCE))), null);
  const binDir = path.join(dataDir, 'bin');
  const native = name === null ? path.join(binDir, 'hook-?') : path.join(binDir, name);
  const others = safe(() => fs.readdirSync(binDir), [] as string[])
    .filter((n) => n.startsWith('hook-') && n !== name)
    .map((n) => path.join(binDir, n));
  const link = path.join(binDir, NATIVE_FORWARDER_LINK);
  return {
    script: { path: script, exists: fs.existsSync(script) },
    native: { path: native, state: nativeState(native) },
    link: { path: link, target: safe(() => path.resolve(binDir, fs.readlinkSync(link)), null) },
    others,
    compilerFound: ['cc', 'gcc', 'clang', env.CC ?? ''].some((c) => c !== '' && findOnPath(c, env.PATH) !== null),
  };
}

function nativeState(file: string): ForwarderSnapshot['native']['state'] {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return 'missing';
  }
  if (process.getuid && stat.uid !== process.getuid()) return 'not_owned';
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return 'ok';
  } catch {
    return 'not_executable';
  }
}
