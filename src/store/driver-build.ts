import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Completes, once, the native build of the SQLite driver that a package manager skipped (pnpm ≥ 10,
 * bun, `npm --ignore-scripts`): the same two steps as the driver's own install script
 * (`prebuild-install || node-gyp rebuild --release`), run by memtrace the first time it needs the
 * store, with a progress line. node-gyp is the one npm ships beside node, and it builds against the
 * headers that node's own installation carries (`<prefix>/include/node`), so it needs no download.
 * A failed attempt is recorded beside the driver and not repeated: the caller then says the one
 * command that fixes it.
 */
export interface DriverBuildDeps {
  /** Where a progress line goes (stderr). */
  progress(line: string): void;
  env: Record<string, string | undefined>;
  execPath: string;
  nowMs(): number;
}

export type DriverBuildResult = { built: true; how: 'prebuilt' | 'compiled'; ms: number } | { built: false; why: string };

const MARKER = 'memtrace-build.json';
/** Another process building the same driver: wait for it rather than build twice. */
const LOCK = '.memtrace-building';
const LOCK_STALE_MS = 10 * 60_000;
const PREBUILT_TIMEOUT_MS = 60_000;
const COMPILE_TIMEOUT_MS = 15 * 60_000;

export function completeDriverBuild(driverDir: string, deps: DriverBuildDeps): DriverBuildResult {
  if (deps.env.MEMTRACE_NO_DRIVER_BUILD === '1') return { built: false, why: 'MEMTRACE_NO_DRIVER_BUILD=1' };
  const buildDir = path.join(driverDir, 'build');
  const marker = path.join(driverDir, MARKER);
  try {
    fs.accessSync(driverDir, fs.constants.W_OK);
  } catch {
    return { built: false, why: `${driverDir} is not writable by you` };
  }
  const previous = readMarker(marker);
  if (previous && previous.node === process.versions.modules && !previous.ok) return { built: false, why: `an earlier attempt failed: ${previous.why}` };
  const lock = path.join(driverDir, LOCK);
  if (!takeLock(lock, deps.nowMs())) {
    deps.progress("memtrace: another memtrace process is completing the SQLite driver's build; waiting for it…");
    waitForLock(lock, deps.nowMs);
    return fs.existsSync(path.join(buildDir, 'Release', 'better_sqlite3.node'))
      ? { built: true, how: 'compiled', ms: 0 }
      : { built: false, why: 'another process was building it and did not succeed' };
  }
  const started = deps.nowMs();
  try {
    deps.progress(
      'memtrace: the SQLite driver (better-sqlite3) was installed without its native build (your package manager skipped its install script); completing it once now, which can take a minute or two…',
    );
    const env = { ...deps.env, npm_config_loglevel: 'error' };
    const prebuilt = prebuildInstall(driverDir);
    if (prebuilt && run(deps.execPath, [prebuilt, '--runtime', 'node', '--target', process.versions.node], driverDir, env, PREBUILT_TIMEOUT_MS).ok) {
      writeMarker(marker, { ok: true, node: process.versions.modules, how: 'prebuilt' });
      return { built: true, how: 'prebuilt', ms: deps.nowMs() - started };
    }
    const gyp = nodeGyp(deps.execPath, deps.env);
    if (!gyp) return failed(marker, 'node-gyp was not found (it comes with npm)');
    const nodeDir = path.resolve(path.dirname(deps.execPath), '..');
    const headers = fs.existsSync(path.join(nodeDir, 'include', 'node', 'node.h')) ? [`--nodedir=${nodeDir}`] : [];
    const compiled = run(deps.execPath, [gyp, 'rebuild', '--release', ...headers], driverDir, env, COMPILE_TIMEOUT_MS);
    if (!compiled.ok) return failed(marker, `node-gyp could not compile it: ${compiled.tail}`);
    writeMarker(marker, { ok: true, node: process.versions.modules, how: 'compiled' });
    deps.progress(`memtrace: the SQLite driver is built (${Math.round((deps.nowMs() - started) / 1000)} s); this does not happen again.`);
    return { built: true, how: 'compiled', ms: deps.nowMs() - started };
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

function failed(marker: string, why: string): DriverBuildResult {
  writeMarker(marker, { ok: false, node: process.versions.modules, why });
  return { built: false, why };
}

function run(file: string, args: string[], cwd: string, env: Record<string, string | undefined>, timeoutMs: number): { ok: boolean; tail: string } {
  const result = spawnSync(file, args, { cwd, env, encoding: 'utf8', timeout: timeoutMs, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n');
  const tail = (result.error ? [String(result.error)] : output.filter((l) => /error|ERR!/i.test(l)).slice(-2)).join(' / ').slice(0, 300);
  return { ok: result.status === 0, tail: tail || `exit ${String(result.status)}` };
}

/** prebuild-install's bin, as the driver's own dependency resolves it (any layout: nested, hoisted, .pnpm). */
function prebuildInstall(driverDir: string): string | null {
  for (let dir = driverDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', 'prebuild-install', 'bin.js');
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
}

/** The node-gyp npm ships (npm_config_node_gyp when a package manager set it, else beside node). */
function nodeGyp(execPath: string, env: Record<string, string | undefined>): string | null {
  const candidates = [
    env.npm_config_node_gyp,
    path.resolve(path.dirname(execPath), '../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js'),
    path.resolve(path.dirname(execPath), 'node_modules/npm/node_modules/node-gyp/bin/node-gyp.js'),
  ];
  return candidates.find((c): c is string => typeof c === 'string' && c !== '' && fs.existsSync(c)) ?? null;
}

function readMarker(file: string): { ok: boolean; node: string; why?: string } | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as { ok: boolean; node: string; why?: string };
  } catch {
    return null;
  }
}

function writeMarker(file: string, value: Record<string, unknown>): void {
  try {
    fs.writeFileSync(file, `${JSON.stringify(value)}\n`);
  } catch {
    // Only a repeat is lost: the next start tries once more.
  }
}

function takeLock(file: string, nowMs: number): boolean {
  try {
    fs.writeFileSync(file, String(nowMs), { flag: 'wx' });
    return true;
  } catch {
    let since = 0;
    try {
      since = Number(fs.readFileSync(file, 'utf8')) || 0;
    } catch {
      // Gone since: the other build ended.
    }
    if (since !== 0 && nowMs - since < LOCK_STALE_MS) return false;
    fs.rmSync(file, { force: true });
    return takeLock(file, nowMs);
  }
}

function waitForLock(file: string, nowMs: () => number): void {
  const deadline = nowMs() + LOCK_STALE_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (fs.existsSync(file) && nowMs() < deadline) Atomics.wait(pause, 0, 0, 250);
}
