/**
 * The native hook forwarder: `memtrace install` builds bin/memtrace-hook.c with the machine's C
 * compiler into DATA_DIR/bin/, where the shell forwarder looks for it. A firing then starts a
 * program of about a millisecond instead of perl (docs/performance.md), and an agent host's MCP
 * server (`memtrace-hook mcp`) starts it as the bridge to the worker. Named by the source's
 * hash, so a forwarder never runs a build of another version's source; without a compiler the
 * hooks keep the Perl or shell path, which do the same work. DATA_DIR/bin/hook links to the
 * current build: the hook commands install writes run it first (`--direct`, no script between),
 * and an upgrade that builds anew moves the link, not the commands.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { makePrivateDir } from '../data-dir/index.js';

export const NATIVE_FORWARDER_SOURCE = path.join('bin', 'memtrace-hook.c');

/** Exit code of a native forwarder that sent nothing (stdin untouched): bin/memtrace-hook.c. */
const NOTHING_SENT = 75;

/** The data dir's link to its current build, which hook commands name (hook-definitions.ts). */
export const NATIVE_FORWARDER_LINK = 'hook';

export function nativeForwarderName(source: Uint8Array): string {
  return `hook-${createHash('sha256').update(source).digest('hex').slice(0, 16)}`;
}

export type NativeForwarderResult =
  | { status: 'built' | 'present'; file: string }
  | { status: 'no-compiler'; compiler: string }
  | { status: 'failed'; compiler: string; reason: string };

type ProgramResult = { status: number | null; error?: Error; stderr: string };
/** Runs a program to its end: the edge install passes in (run-program.ts). */
export type RunProgram = (command: string, args: string[]) => ProgramResult;
/** The same, without blocking: for a running worker, whose hooks must not wait on a compiler. */
export type RunProgramAsync = (command: string, args: string[]) => Promise<ProgramResult>;

export interface BuildOptions {
  packageRoot: string;
  dataDir: string;
  /** `CC` when set, as make does; else `cc`. */
  compiler: string;
  run: RunProgram;
}

export function buildNativeForwarder(options: BuildOptions): NativeForwarderResult {
  const steps = buildSteps(options);
  let step = steps.next();
  while (!step.done) step = steps.next(options.run(step.value.command, step.value.args));
  return step.value;
}

/** buildNativeForwarder off the event loop: the worker builds its own forwarder after an upgrade. */
export async function buildNativeForwarderAsync(options: Omit<BuildOptions, 'run'> & { run: RunProgramAsync }): Promise<NativeForwarderResult> {
  const steps = buildSteps(options);
  let step = steps.next();
  while (!step.done) step = steps.next(await options.run(step.value.command, step.value.args));
  return step.value;
}

/**
 * Whether this install's forwarder is missing from a data dir where `memtrace install` built one
 * for another version's source: after an upgrade in place the hooks would otherwise fall back to
 * perl until install runs again. A data dir with no build at all was left so on purpose.
 */
export function forwarderOutdated(packageRoot: string, dataDir: string): boolean {
  try {
    const own = nativeForwarderName(fs.readFileSync(path.join(packageRoot, NATIVE_FORWARDER_SOURCE)));
    const builds = fs.readdirSync(path.join(dataDir, 'bin')).filter((name) => /^hook-[0-9a-f]{16}$/.test(name));
    return builds.length > 0 && !builds.includes(own);
  } catch {
    return false;
  }
}

/** The build as the programs it runs: each yielded call is answered with that program's result. */
function* buildSteps(options: Omit<BuildOptions, 'run'>): Generator<{ command: string; args: string[] }, NativeForwarderResult, ProgramResult> {
  const { compiler, dataDir } = options;
  const sourceFile = path.join(options.packageRoot, NATIVE_FORWARDER_SOURCE);
  const source = fs.readFileSync(sourceFile);
  const binDir = path.join(dataDir, 'bin');
  const file = path.join(binDir, nativeForwarderName(source));
  if (isExecutable(file)) {
    linkCurrent(binDir, path.basename(file));
    return { status: 'present', file };
  }
  makePrivateDir(binDir);
  // Built beside its final name and renamed: a hook firing meanwhile sees no file or a whole one.
  const building = `${file}.${process.pid}.building`;
  try {
    // CC may carry flags ("gcc -m64"), as make reads it.
    const [program = 'cc', ...flags] = compiler.trim().split(/\s+/);
    const compile = (linking: string[]) => ({ command: program, args: [...flags, '-O2', ...linking, '-o', building, sourceFile] });
    // Linked statically where the C library allows it: each firing then skips the dynamic loader
    // (about 0.13 ms of the hook's 1.9 ms over a `true` hook, docs/performance.md). Where it does
    // not (no static libc, macOS), as usual.
    let compiled = yield compile(['-static']);
    if (compiled.error && (compiled.error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'no-compiler', compiler };
    if (compiled.status !== 0) compiled = yield compile([]);
    if (compiled.status !== 0) return { status: 'failed', compiler, reason: firstLine(compiled.stderr) || `exit ${compiled.status}` };
    // A build that runs and keeps the contract, or none: asked about a data dir with no worker,
    // it must say "nothing sent".
    const noWorker = path.join(binDir, 'no-worker-here');
    const probe = yield { command: building, args: [noWorker, 'claude-code', 'stop', 'settings'] };
    if (probe.status !== NOTHING_SENT)
      return { status: 'failed', compiler, reason: `the built forwarder answered ${probe.status ?? probe.error?.message} to a data dir with no worker` };
    // The MCP bridge mode too: with no worker and no fallback program it hands over nothing.
    const bridgeProbe = yield { command: building, args: ['--mcp-bridge', noWorker] };
    if (bridgeProbe.status !== NOTHING_SENT)
      return {
        status: 'failed',
        compiler,
        reason: `the built MCP bridge answered ${bridgeProbe.status ?? bridgeProbe.error?.message} to a data dir with no worker`,
      };
    fs.chmodSync(building, 0o700);
    fs.renameSync(building, file);
    linkCurrent(binDir, path.basename(file));
    return { status: 'built', file };
  } finally {
    fs.rmSync(building, { force: true });
  }
}

/** Points bin/hook at `name`, replacing the link in one rename: a firing finds the old build or the new one, never none. */
function linkCurrent(binDir: string, name: string): void {
  const link = path.join(binDir, NATIVE_FORWARDER_LINK);
  try {
    if (fs.readlinkSync(link) === name) return;
  } catch {
    // No link yet (or a file in its place): made below.
  }
  const next = `${link}.${process.pid}.linking`;
  fs.rmSync(next, { force: true });
  fs.symlinkSync(name, next);
  try {
    fs.renameSync(next, link);
  } finally {
    fs.rmSync(next, { force: true });
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
