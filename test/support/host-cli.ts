/**
 * Runs the REAL Gemini CLI (`@google/gemini-cli`), Codex CLI (`@openai/codex`) or GitHub Copilot
 * CLI (`@github/copilot`, BYOK with COPILOT_OFFLINE), pinned devDependencies, offline in one-shot
 * mode against their fake model APIs
 * (test/support/hosts/*-fake-api.mjs, copied from shared/hosts), with a scratch HOME.
 *
 * Offline proof as for Claude Code (claude-code.ts): under `unshare -n` the CLI sees only
 * loopback; loopback-sandbox.mjs forwards the fake API's port and the worker's through Unix
 * sockets to servers outside. The test trusts the project itself (Codex: `trust_level` in the
 * scratch config plus `--dangerously-bypass-hook-trust`; Gemini: GEMINI_CLI_TRUST_WORKSPACE and
 * `--skip-trust`), as memtrace install never does.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bridgeUnixToTcp, loopbackSandboxAvailable } from './claude-code.js';

export type AgentHost = 'gemini-cli' | 'codex' | 'copilot';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const HOST_BINS: Readonly<Record<AgentHost, string>> = {
  'gemini-cli': path.join(ROOT, 'node_modules/.bin/gemini'),
  codex: path.join(ROOT, 'node_modules/.bin/codex'),
  copilot: path.join(ROOT, 'node_modules/.bin/copilot'),
};
/**
 * Where the Copilot CLI unpacks its ~235 MB package on first start ($XDG_CACHE_HOME/copilot): kept
 * between runs (a cold start costs about 2 s more), never in a test's scratch HOME.
 */
const COPILOT_CACHE = path.join(ROOT, 'node_modules', '.cache', 'memtrace-copilot-xdg');
/** The key the Copilot runs send their fake API (BYOK); long, since Copilot masks the key's text wherever it prints it. */
const COPILOT_FAKE_KEY = 'fake-copilot-key-0123456789';
const FAKE_APIS: Readonly<Record<AgentHost, string>> = {
  'gemini-cli': path.join(import.meta.dirname, 'hosts/gemini-cli-fake-api.mjs'),
  codex: path.join(import.meta.dirname, 'hosts/codex-fake-api.mjs'),
  copilot: path.join(import.meta.dirname, 'hosts/opencode-copilot-pi-fake-api.mjs'), // one file serves OpenCode, Copilot and pi
};
const SANDBOX = path.join(import.meta.dirname, 'loopback-sandbox.mjs');
const HOST_PROMPT = 'Create out.txt, read it, edit it, then cat a missing file.';

/** Why the host CLI cannot run here, or null when `--version` works. */
export function hostUnavailableReason(host: AgentHost): string | null {
  const bin = HOST_BINS[host];
  if (!fs.existsSync(bin)) return `${bin} is missing (npm install)`;
  const probe = spawnSync(bin, ['--version'], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...(host === 'copilot' ? { XDG_CACHE_HOME: COPILOT_CACHE, COPILOT_AUTO_UPDATE: 'false' } : {}) },
  });
  if (probe.error || probe.status !== 0) return `${host} --version failed: ${(probe.error?.message ?? probe.stderr ?? '').slice(0, 200)}`;
  if (!loopbackSandboxAvailable()) return 'unshare -n is not available here (the host CLIs run only inside a loopback-only network namespace)';
  return null;
}

export interface FakeApi {
  port: number;
  /** Every request logged so far (one JSON object each: path, kind, body, …). */
  requests(): any[];
  close(): Promise<void>;
}

/** What a fake model API run is given: its log, the project `${PROJECT}` names, and optionally its steps and side text. */
export interface FakeApiOptions {
  projectDir: string;
  logFile: string;
  /** Replaces the file's default steps (see its header). */
  script?: unknown[];
  sideText?: string;
  /** Tool-less requests follow the script too (an observer call offers no tools). */
  toollessMain?: boolean;
}

/** Starts the host's fake model API. */
export function startHostFakeApi(host: AgentHost, options: FakeApiOptions): Promise<FakeApi> {
  return startFakeApiFile(FAKE_APIS[host], options);
}

/**
 * A fake model API file (test/support/hosts/*-fake-api.mjs) run as a child process: its port once
 * it prints `PORT=<n>`, and its request log. One for every host, whichever harness drives it.
 */
export async function startFakeApiFile(file: string, options: FakeApiOptions): Promise<FakeApi> {
  const args = [file, '--port', '0', '--log', options.logFile, '--project', options.projectDir];
  if (options.toollessMain) args.push('--toolless-main');
  if (options.sideText !== undefined) {
    const sideFile = `${options.logFile}.side.txt`;
    fs.writeFileSync(sideFile, options.sideText);
    args.push('--side-text', sideFile);
  }
  if (options.script) {
    const scriptFile = `${options.logFile}.script.json`;
    fs.writeFileSync(scriptFile, JSON.stringify(options.script));
    args.push('--script', scriptFile);
  }
  const { logFile } = options;
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const match = /PORT=(\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`fake API exited ${code}`)));
  });
  return {
    port,
    requests: () =>
      fs.existsSync(logFile)
        ? fs
            .readFileSync(logFile, 'utf8')
            .split('\n')
            .filter((l) => l.trim() !== '')
            .map((l) => JSON.parse(l))
        : [],
    close: () => stop(child),
  };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * The scratch HOME's user config that points the host at the fake API (what a user's own setup
 * would be), and the project trusted the way the tests may (never memtrace's doing).
 */
export function prepareHostHome(host: AgentHost, home: string, apiPort: number, trustedProject: string | null): void {
  // Copilot: the fake API is named in the environment (BYOK), and the project trusted per run (hostArgs).
  if (host === 'copilot') return;
  if (host === 'gemini-cli') {
    const file = path.join(home, '.gemini', 'settings.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // With GOOGLE_GEMINI_BASE_URL set, 0.61 otherwise picks the "gateway" auth, which -p refuses.
    fs.writeFileSync(file, `${JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }, null, 2)}\n`);
    return;
  }
  const file = path.join(home, '.codex', 'config.toml');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const trust = trustedProject === null ? '' : `\n[projects.${JSON.stringify(trustedProject)}]\ntrust_level = "trusted"\n`;
  fs.writeFileSync(
    file,
    `model = "gpt-5.5"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\nbase_url = "http://127.0.0.1:${apiPort}/v1"\nenv_key = "FAKE_OPENAI_API_KEY"\nwire_api = "responses"\n\n# Without this, exit waits ~5 s for a telemetry export.\n[analytics]\nenabled = false\n${trust}`,
  );
}

export interface HostRunOptions {
  projectDir: string;
  home: string;
  apiPort: number;
  prompt?: string;
  env?: Record<string, string>;
  /** Other 127.0.0.1 ports the CLI or its hooks must reach (the memtrace worker's). */
  forwardPorts?: number[];
  timeoutMs?: number;
  /** Looked at every 100 ms while the CLI runs: once true, the CLI's process group is SIGKILLed (a session killed mid-call). */
  killWhen?: () => boolean;
}

export interface HostRunResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  timedOut: boolean;
  /** Killed by `killWhen`. */
  killed: boolean;
}

function hostArgs(host: AgentHost, prompt: string): string[] {
  if (host === 'copilot') {
    // --trust-folder: a project's own hooks and MCP servers (install --project) load for this run only.
    return ['-p', prompt, '--allow-all', '--trust-folder', '--no-auto-update', '--output-format', 'json'];
  }
  return host === 'gemini-cli'
    ? ['-p', prompt, '--approval-mode', 'yolo', '--skip-trust', '--output-format', 'stream-json']
    : ['exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--dangerously-bypass-hook-trust', prompt];
}

function hostEnv(host: AgentHost, home: string, apiPort: number): Record<string, string> {
  const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: path.join(home, 'tmp'), LANG: 'C.UTF-8', NO_COLOR: '1' };
  if (host === 'copilot') return { ...base, ...copilotFakeLogin(apiPort), GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP: 'true' };
  return host === 'gemini-cli'
    ? { ...base, GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${apiPort}`, GEMINI_API_KEY: 'fake-key', GEMINI_CLI_TRUST_WORKSPACE: 'true' }
    : { ...base, FAKE_OPENAI_API_KEY: 'fake-key' };
}

/** Copilot's BYOK login against the fake API, offline (no GitHub sign-in, no telemetry, no update check). */
export function copilotFakeLogin(apiPort: number): Record<string, string> {
  return {
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: `http://127.0.0.1:${apiPort}/v1`,
    COPILOT_PROVIDER_TYPE: 'openai',
    COPILOT_PROVIDER_API_KEY: COPILOT_FAKE_KEY,
    COPILOT_MODEL: 'fake-model',
    COPILOT_AUTO_UPDATE: 'false',
    XDG_CACHE_HOME: COPILOT_CACHE,
  };
}

/** One scripted session of the host CLI inside the loopback-only namespace; stdin is /dev/null. */
export async function runHostCli(host: AgentHost, options: HostRunOptions): Promise<HostRunResult> {
  fs.mkdirSync(path.join(options.home, 'tmp'), { recursive: true, mode: 0o700 });
  const run = await runInLoopbackSandbox(HOST_BINS[host], hostArgs(host, options.prompt ?? HOST_PROMPT), {
    cwd: options.projectDir,
    env: { ...hostEnv(host, options.home, options.apiPort), ...options.env },
    ports: [options.apiPort, ...(options.forwardPorts ?? [])],
    timeoutMs: options.timeoutMs ?? 120_000,
    ...(options.killWhen ? { killWhen: options.killWhen } : {}),
  });
  return {
    exitCode: run.exitCode,
    stdout: run.stdout,
    stderr: run.stderr,
    wallMs: run.wallMs,
    timedOut: run.killedAt === 'timeout',
    killed: run.killedAt === 'asked',
  };
}

export interface SandboxRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  /** Why its process group was killed (SIGKILL), if it was: the time ran out, or `killWhen` came true. */
  killedAt: 'timeout' | 'asked' | null;
}

/**
 * `bin args…` inside a loopback-only network namespace (`unshare -n` + loopback-sandbox.mjs), with
 * each of `ports` on 127.0.0.1 forwarded to the server of that port outside; stdin is /dev/null,
 * its own process group (a timeout or `killWhen` kills everything it started).
 */
export async function runInLoopbackSandbox(
  bin: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; ports: number[]; timeoutMs: number; killWhen?: () => boolean },
): Promise<SandboxRun> {
  const socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mt-hsock-'));
  const bridges: Array<{ close(): Promise<void> }> = [];
  const forwards: string[] = [];
  try {
    for (const port of options.ports) {
      const socketPath = path.join(socketDir, `${port}.sock`);
      bridges.push(await bridgeUnixToTcp(socketPath, port));
      forwards.push('--forward', `${port}=${socketPath}`);
    }
    // Output goes to files: a pipe shared with the node sandbox is non-blocking, and Codex panics
    // (exit 101) on EAGAIN when it prints a large event to it.
    const outFile = path.join(socketDir, 'stdout');
    const errFile = path.join(socketDir, 'stderr');
    const out = fs.openSync(outFile, 'w');
    const err = fs.openSync(errFile, 'w');
    const started = performance.now();
    const child = spawn('unshare', ['-n', process.execPath, SANDBOX, ...forwards, '--', bin, ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', out, err],
      detached: true, // its own process group, so a timeout kills hooks too
    });
    fs.closeSync(out);
    fs.closeSync(err);
    let killedAt: SandboxRun['killedAt'] = null;
    const kill = (why: 'timeout' | 'asked') => {
      if (!child.pid || child.exitCode !== null || killedAt) return;
      killedAt = why;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => kill('timeout'), options.timeoutMs);
    // A condition looked at while the run lasts, not a promise: nothing is left waiting after it ends.
    const watch = options.killWhen
      ? setInterval(() => {
          if (options.killWhen!()) kill('asked');
        }, 100)
      : null;
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => resolve(code));
    }).finally(() => {
      clearTimeout(timer);
      if (watch) clearInterval(watch);
    });
    const wallMs = performance.now() - started;
    return { exitCode, stdout: fs.readFileSync(outFile, 'utf8'), stderr: fs.readFileSync(errFile, 'utf8'), wallMs, killedAt };
  } finally {
    await Promise.all(bridges.map((b) => b.close()));
    fs.rmSync(socketDir, { recursive: true, force: true });
  }
}
