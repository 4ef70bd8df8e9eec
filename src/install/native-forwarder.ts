/**
 * The native hook forwarder: `memtrace install` builds bin/memtrace-hook.c with the machine's C
 * compiler into DATA_DIR/bin/, where the shell forwarder looks for it. A firing then starts a
 * program of about a millisecond instead of perl (docs/performance.md), and an agent host's MCP
 * server (`memtrace-hook mcp`) starts it as the bridge to the worker. Named by the source's
 * hash, so a forwarder never runs a build of another version's source; without a compiler the
 * hooks keep the Perl or shell path, which do the same work.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { makePrivateDir } from '../data-dir/index.js';

export const NATIVE_FORWARDER_SOURCE = path.join('bin', 'memtrace-hook.c');

/** Exit code of a native forwarder that sent nothing (stdin untouched): bin/memtrace-hook.c. */
const NOTHING_SENT = 75;

export function nativeForwarderName(source: Uint8Array): string {
  return `hook-${createHash('sha256').update(source).digest('hex').slice(0, 16)}`;
}

type NativeForwarderResult =
  | { status: 'built' | 'present'; file: string }
  | { status: 'no-compiler'; compiler: string }
  | { status: 'failed'; compiler: string; reason: string };

/** Runs a program to its end: the edge install passes in (run-program.ts). */
export type RunProgram = (command: string, args: string[]) => { status: number | null; error?: Error; stderr: string };

export interface BuildOptions {
  packageRoot: string;
  dataDir: string;
  /** `CC` when set, as make does; else `cc`. */
  compiler: string;
  run: RunProgram;
}

export function buildNativeForwarder(options: BuildOptions): NativeForwarderResult {
  const { compiler, dataDir, run } = options;
  const sourceFile = path.join(options.packageRoot, NATIVE_FORWARDER_SOURCE);
  const source = fs.readFileSync(sourceFile);
  const binDir = path.join(dataDir, 'bin');
  const file = path.join(binDir, nativeForwarderName(source));
  if (isExecutable(file)) return { status: 'present', file };
  makePrivateDir(binDir);
  // Built beside its final name and renamed: a hook firing meanwhile sees no file or a whole one.
  const building = `${file}.${process.pid}.building`;
  try {
    // CC may carry flags ("gcc -m64"), as make reads it.
    const [program = 'cc', ...flags] = compiler.trim().split(/\s+/);
    const compiled = run(program, [...flags, '-O2', '-o', building, sourceFile]);
    if (compiled.error && (compiled.error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'no-compiler', compiler };
    if (compiled.status !== 0) return { status: 'failed', compiler, reason: firstLine(compiled.stderr) || `exit ${compiled.status}` };
    // A build that runs and keeps the contract, or none: asked about a data dir with no worker,
    // it must say "nothing sent".
    const noWorker = path.join(binDir, 'no-worker-here');
    const probe = run(building, [noWorker, 'claude-code', 'stop', 'settings']);
    if (probe.status !== NOTHING_SENT)
      return { status: 'failed', compiler, reason: `the built forwarder answered ${probe.status ?? probe.error?.message} to a data dir with no worker` };
    // The MCP bridge mode too: with no worker and no fallback program it hands over nothing.
    const bridgeProbe = run(building, ['--mcp-bridge', noWorker]);
    if (bridgeProbe.status !== NOTHING_SENT)
      return {
        status: 'failed',
        compiler,
        reason: `the built MCP bridge answered ${bridgeProbe.status ?? bridgeProbe.error?.message} to a data dir with no worker`,
      };
    fs.chmodSync(building, 0o700);
    fs.renameSync(building, file);
    return { status: 'built', file };
  } finally {
    fs.rmSync(building, { force: true });
  }
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function firstLine(text: string): string {
  return text.split('\n').find((line) => line.trim() !== '') ?? '';
}
