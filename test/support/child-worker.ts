import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { readAuthToken } from '../../src/data-dir/index.js';

const BIN = path.resolve(import.meta.dirname, '../../bin/memtrace.cjs');

export interface ChildWorker {
  url: string;
  pid: number;
  /** Headers that authorize API calls (the install token from the data dir). */
  auth: Record<string, string>;
  process: ChildProcess;
  output: () => string;
  kill9(): Promise<void>;
  stop(): Promise<number | null>;
}

interface WorkerSpawnOptions {
  umask?: string;
  /** Arguments after `--port 0`. */
  args?: string[];
  /** Node's own flags (benchmarks: --cpu-prof, which NODE_OPTIONS does not take). */
  nodeArgs?: string[];
  /** Another build's `bin/memtrace.cjs` (a benchmark's baseline); this tree's by default. */
  bin?: string;
}

/** The worker command line (with `args` after `--port 0`), optionally under a given umask (through /bin/sh). */
function spawnWorker(env: Record<string, string>, options: WorkerSpawnOptions = {}) {
  const childEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env };
  const command = [options.bin ?? BIN, 'worker', '--port', '0', ...(options.args ?? [])];
  if (options.umask === undefined)
    return spawn(process.execPath, [...(options.nodeArgs ?? []), ...command], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  return spawn('/bin/sh', ['-c', `umask ${options.umask} && exec "$0" "$@"`, process.execPath, ...(options.nodeArgs ?? []), ...command], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A worker start that is expected to fail: its exit code and what it printed. */
export function runWorkerToExit(env: Record<string, string>, timeoutMs = 20_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnWorker(env);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`worker did not exit within ${timeoutMs} ms:\n${stdout}${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `memtrace worker --port 0` as a real child process; resolves once it prints its URL. */
export function startChildWorker(env: Record<string, string>, options: WorkerSpawnOptions = {}): Promise<ChildWorker> {
  return new Promise((resolve, reject) => {
    const child = spawnWorker(env, options);
    let output = '';
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        const token = env.MEMTRACE_DATA_DIR ? readAuthToken(env.MEMTRACE_DATA_DIR) : null;
        resolve({
          url: match[1]!,
          pid: child.pid!,
          auth: token ? { authorization: `Bearer ${token}` } : {},
          process: child,
          output: () => output,
          async kill9() {
            child.kill('SIGKILL');
            await exited;
          },
          async stop() {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code}) before starting:\n${output}`));
    });
  });
}
