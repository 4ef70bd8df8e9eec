import { spawn } from 'node:child_process';
import os from 'node:os';

/** One headless run of a host CLI: what to start, where, with what, for how long. */
export interface CliRun {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** Written to the CLI's stdin, which is then closed. */
  stdin: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Added to the CLI's scheduling priority (nice): it yields the CPU to the agent the user is waiting on. */
  niceness: number;
}

export type CliOutcome =
  | { kind: 'exited'; exitCode: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; wallMs: number }
  /** The binary was not found (or is not executable). */
  | { kind: 'missing'; error: string }
  | { kind: 'timed_out'; stdout: string; stderr: string; wallMs: number }
  | { kind: 'aborted'; reason: unknown };

/** What is kept of each stream: the end holds a CLI's result line, so the tail is what stays. */
const MAX_STREAM_CHARS = 4 * 1024 * 1024;

/**
 * Runs a CLI in its own process group, at lower priority, and kills the whole group (the CLI and
 * anything it started) on timeout or abort. Never throws: every ending is an outcome. The group
 * gets SIGKILL at once: an observer call holds nothing worth a graceful stop, and a CLI that
 * ignored SIGTERM would otherwise outlive a stopping worker.
 */
export function runCli(run: CliRun): Promise<CliOutcome> {
  if (run.signal?.aborted) return Promise.resolve({ kind: 'aborted', reason: run.signal.reason });
  return new Promise<CliOutcome>((resolve) => {
    const started = performance.now();
    let settled = false;
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let aborted = false;
    const child = spawn(run.file, [...run.args], {
      cwd: run.cwd,
      env: run.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so the group can be killed with everything the CLI started.
      detached: true,
    });
    if (child.pid !== undefined && run.niceness > 0) {
      try {
        // Relative to the worker's own priority: never above it, whatever the worker runs at.
        os.setPriority(child.pid, Math.min(19, os.getPriority() + run.niceness));
      } catch {
        // Lowering a child's priority needs no privilege; if the OS still refuses, the call runs anyway.
      }
    }
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, run.timeoutMs);
    timer.unref();
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    run.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (outcome: CliOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      run.signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout = keepTail(stdout + chunk);
    });
    child.stderr.on('data', (chunk: string) => {
      stderr = keepTail(stderr + chunk);
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'EACCES') finish({ kind: 'missing', error: `${run.file}: ${error.code}` });
      else finish({ kind: 'exited', exitCode: null, signal: null, stdout, stderr: `${stderr}${error.message}`, wallMs: performance.now() - started });
    });
    child.once('close', (exitCode, signal) => {
      const wallMs = performance.now() - started;
      if (aborted) finish({ kind: 'aborted', reason: run.signal?.reason });
      else if (timedOut) finish({ kind: 'timed_out', stdout, stderr, wallMs });
      else finish({ kind: 'exited', exitCode, signal, stdout, stderr, wallMs });
    });
    // A CLI that exits before reading its input closes the pipe: that is its answer, not ours to throw.
    child.stdin.on('error', () => undefined);
    child.stdin.end(run.stdin);
  });
}

function keepTail(text: string): string {
  return text.length <= MAX_STREAM_CHARS ? text : text.slice(text.length - MAX_STREAM_CHARS);
}
