/**
 * Runs the REAL Claude Code CLI (`@anthropic-ai/claude-code`, pinned devDependency) offline in `-p`
 * mode against a fake Anthropic API (fake-anthropic.ts), with a scratch HOME.
 *
 * Offline proof: when `unshare -n` works (we are root here), the CLI runs in a network namespace
 * with only loopback; loopback-sandbox.mjs forwards the API port (and any `forwardPorts`, e.g. a
 * memtrace worker's) through Unix sockets back to servers in this process. Anything else it tried
 * to reach would fail with ENETUNREACH.
 *
 * Quirks: as root `--dangerously-skip-permissions` is refused, so tools are allowed with
 * `--allowedTools`; the project must be marked trusted in `$HOME/.claude.json`.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const CLAUDE_BIN = path.join(ROOT, 'node_modules/.bin/claude');
const SANDBOX = path.join(import.meta.dirname, 'loopback-sandbox.mjs');

export interface ClaudeRunOptions {
  projectDir: string;
  prompt: string;
  /** Base URL of the fake Anthropic API on 127.0.0.1. */
  apiUrl: string;
  /**
   * Scratch HOME (reuse it to `--resume`); when absent a new one is made under the OS temp dir and
   * returned as `result.home` — the caller removes it. Put it inside your test's temp dir instead.
   */
  home?: string;
  env?: Record<string, string>;
  allowedTools?: string[];
  /** More CLI arguments, e.g. `['--resume', id]` or `['--model', 'x']`. */
  extraArgs?: string[];
  /** Other 127.0.0.1 ports the CLI or its hooks must reach from inside the sandbox. */
  forwardPorts?: number[];
  /** 'auto' uses `unshare -n` when it works; 'off' never; 'required' throws when it cannot. */
  sandbox?: 'auto' | 'off' | 'required';
  timeoutMs?: number;
}

export interface ClaudeRunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** `--output-format json` result object, or null when stdout was not one JSON value. */
  json: any;
  stdout: string;
  stderr: string;
  wallMs: number;
  sandboxed: boolean;
  home: string;
  /** Every `*.jsonl` under `$HOME/.claude/projects/` (sessions and subagents), sorted. */
  transcripts: string[];
}

/**
 * The offline environment every run gets (callers' `env` is laid over it). TMPDIR and
 * CLAUDE_CODE_TMPDIR point into the scratch HOME: otherwise the CLI leaves a
 * `/tmp/claude-<uid>/<project>/<session>/` folder behind per run.
 */
function offlineEnv(home: string, apiUrl: string): Record<string, string> {
  const tmp = path.join(home, 'tmp');
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    TMPDIR: tmp,
    CLAUDE_CODE_TMPDIR: tmp,
    LANG: 'C.UTF-8',
    ANTHROPIC_BASE_URL: apiUrl,
    ANTHROPIC_API_KEY: 'sk-ant-offline-test',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
  };
}

/** Writes (or extends) `$HOME/.claude.json` so onboarding is done and `projectDir` is trusted. */
function prepareClaudeHome(home: string, projectDir: string): void {
  const file = path.join(home, '.claude.json');
  let config: any = {};
  if (fs.existsSync(file)) config = JSON.parse(fs.readFileSync(file, 'utf8'));
  config.hasCompletedOnboarding = true;
  config.projects ??= {};
  config.projects[projectDir] = { ...config.projects[projectDir], hasTrustDialogAccepted: true };
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
}

/** Why the claude binary cannot run here, or null when `claude --version` works. */
export function claudeUnavailableReason(): string | null {
  if (!fs.existsSync(CLAUDE_BIN)) return `${CLAUDE_BIN} is missing (npm install)`;
  const probe = spawnSync(CLAUDE_BIN, ['--version'], { encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir() } });
  if (probe.error) return `claude --version failed: ${probe.error.message}`;
  if (probe.status !== 0 || !/Claude Code/.test(probe.stdout))
    return `claude --version exited ${probe.status}: ${(probe.stderr || probe.stdout).trim().slice(0, 200)}`;
  return null;
}

/** e.g. "2.1.330 (Claude Code)". */
export function claudeVersion(): string {
  return spawnSync(CLAUDE_BIN, ['--version'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir() } }).stdout.trim();
}

let sandboxWorks: boolean | undefined;
/** Whether `unshare -n` plus `ip link set lo up` work here (root, or a kernel allowing it). */
export function loopbackSandboxAvailable(): boolean {
  sandboxWorks ??= spawnSync('unshare', ['-n', 'ip', 'link', 'set', 'lo', 'up'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
  return sandboxWorks;
}

export async function runClaudeCode(options: ClaudeRunOptions): Promise<ClaudeRunResult> {
  const home = options.home ?? fs.mkdtempSync(path.join(os.tmpdir(), 'memtrace-cc-home-'));
  fs.mkdirSync(path.join(home, 'tmp'), { recursive: true, mode: 0o700 });
  prepareClaudeHome(home, options.projectDir);
  const mode = options.sandbox ?? 'auto';
  const sandboxed = mode !== 'off' && loopbackSandboxAvailable();
  if (mode === 'required' && !sandboxed) throw new Error('unshare -n is not available here');

  const claudeArgs = [
    '-p',
    options.prompt,
    '--output-format',
    'json',
    '--allowedTools',
    (options.allowedTools ?? ['Bash', 'Read', 'Edit', 'Write']).join(','),
    ...(options.extraArgs ?? []),
  ];
  const bridges: Array<{ close(): Promise<void> }> = [];
  let socketDir: string | undefined;
  let file = CLAUDE_BIN;
  let args = claudeArgs;
  if (sandboxed) {
    const ports = [Number(new URL(options.apiUrl).port), ...(options.forwardPorts ?? [])];
    socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mt-sock-'));
    const forwards: string[] = [];
    for (const port of ports) {
      const socketPath = path.join(socketDir, `${port}.sock`);
      bridges.push(await bridgeUnixToTcp(socketPath, port));
      forwards.push('--forward', `${port}=${socketPath}`);
    }
    file = 'unshare';
    args = ['-n', process.execPath, SANDBOX, ...forwards, '--', CLAUDE_BIN, ...claudeArgs];
  }

  try {
    const started = performance.now();
    const child = spawn(file, args, {
      cwd: options.projectDir,
      env: { ...offlineEnv(home, options.apiUrl), ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, so a timeout kills hooks too
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, options.timeoutMs ?? 60_000);
    const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, sig) => resolve([code, sig]));
    }).finally(() => clearTimeout(timer));
    const wallMs = performance.now() - started;
    return { exitCode, signal, timedOut, json: parseJson(stdout), stdout, stderr, wallMs, sandboxed, home, transcripts: listTranscripts(home) };
  } finally {
    await Promise.all(bridges.map((b) => b.close()));
    if (socketDir) fs.rmSync(socketDir, { recursive: true, force: true });
  }
}

function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Every `*.jsonl` under `<home>/.claude/projects`, recursively, sorted. */
function listTranscripts(home: string): string[] {
  const root = path.join(home, '.claude', 'projects');
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => path.join(root, name))
    .sort();
}

/** Reads a JSONL file into values, skipping blank lines. */
export function readJsonl(file: string): any[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

/** Serves a Unix socket whose connections are piped to 127.0.0.1:<port> (the sandbox's way out). */
export function bridgeUnixToTcp(socketPath: string, port: number): Promise<{ close(): Promise<void> }> {
  const open = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect(port, '127.0.0.1');
    for (const s of [inbound, outbound]) {
      open.add(s);
      s.on('close', () => open.delete(s));
    }
    inbound.pipe(outbound);
    outbound.pipe(inbound);
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () =>
      resolve({
        close: () =>
          new Promise<void>((done) => {
            for (const s of open) s.destroy();
            server.close(() => done());
          }),
      }),
    );
  });
}
