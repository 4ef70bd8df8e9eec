/**
 * Runs the REAL OpenCode 1.18.33 (`opencode-ai`, its platform binary) or pi 0.73.1
 * (`@mariozechner/pi-coding-agent`), pinned devDependencies, offline against the fake model API
 * of shared/hosts (test/support/hosts/opencode-pi-fake-api.mjs), inside a loopback-only network
 * namespace as the other host tests do (loopback-sandbox.mjs forwards the fake API's port and
 * the worker's; the plugin reaches the worker over its Unix socket, which crosses namespaces).
 * Each run has a scratch HOME holding the user's own setup: the fake provider, and for OpenCode
 * its plugin dependencies pre-seeded (offline, OpenCode otherwise retries an npm install of its
 * plugin package for ~70 s at every start: AGENT-HOSTS-2.md §2.7; that is OpenCode's, not memtrace's).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bridgeUnixToTcp, loopbackSandboxAvailable } from './claude-code.js';

export type InProcessHost = 'opencode' | 'pi';

const ROOT = path.resolve(import.meta.dirname, '../..');
const OPENCODE_BINARY = path.join(ROOT, 'node_modules/opencode-linux-x64/bin/opencode');
export const IN_PROCESS_BINS: Readonly<Record<InProcessHost, string>> = {
  // The platform binary itself (what the opencode-ai postinstall links as bin/opencode).
  opencode: fs.existsSync(OPENCODE_BINARY) ? OPENCODE_BINARY : path.join(ROOT, 'node_modules/.bin/opencode'),
  pi: path.join(ROOT, 'node_modules/.bin/pi'),
};
const FAKE_API = path.join(import.meta.dirname, 'hosts/opencode-pi-fake-api.mjs');
const SANDBOX = path.join(import.meta.dirname, 'loopback-sandbox.mjs');
export const HOST_PROMPT = 'Create out.txt, read it, edit it, then cat a missing file.';

/** Why the host CLI cannot run here, or null when `--version` works. */
export function inProcessHostUnavailableReason(host: InProcessHost): string | null {
  const bin = IN_PROCESS_BINS[host];
  if (!fs.existsSync(bin)) return `${bin} is missing (npm install)`;
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'mt-ver-'));
  try {
    const probe = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH ?? '', HOME: home, TMPDIR: home } });
    if (probe.error || probe.status !== 0) return `${host} --version failed: ${(probe.error?.message ?? probe.stderr ?? '').slice(0, 200)}`;
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
  if (!loopbackSandboxAvailable()) return 'unshare -n is not available here (the host CLIs run only inside a loopback-only network namespace)';
  return null;
}

export interface FakeApi {
  port: number;
  /** Every request logged so far (one JSON object each: path, kind, step, body, …). */
  requests(): any[];
  close(): Promise<void>;
}

/** The fake model API; `script` steps are `{call, args}`, `{calls}` or `{text}` (see the file's header). */
export async function startFakeModelApi(options: { projectDir: string; logFile: string; script: unknown[]; toollessMain?: boolean }): Promise<FakeApi> {
  const scriptFile = `${options.logFile}.script.json`;
  fs.writeFileSync(scriptFile, JSON.stringify(options.script));
  const args = [FAKE_API, '--port', '0', '--log', options.logFile, '--project', options.projectDir, '--script', scriptFile];
  if (options.toollessMain) args.push('--toolless-main');
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
      fs.existsSync(options.logFile)
        ? fs
            .readFileSync(options.logFile, 'utf8')
            .split('\n')
            .filter((l) => l.trim() !== '')
            .map((l) => JSON.parse(l))
        : [],
    close: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** The user's own setup in a scratch HOME: the fake provider (and for OpenCode its plugin dependencies in place). */
export function prepareInProcessHome(host: InProcessHost, home: string, apiPort: number): void {
  if (host === 'pi') {
    const agent = path.join(home, '.pi', 'agent');
    fs.mkdirSync(agent, { recursive: true });
    const provider = {
      baseUrl: `http://127.0.0.1:${apiPort}/v1`,
      api: 'openai-completions',
      apiKey: 'FAKE_API_KEY',
      compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
      models: [{ id: 'fake-model', name: 'Fake Model', reasoning: false, input: ['text'], contextWindow: 128000, maxTokens: 8192 }],
    };
    fs.writeFileSync(path.join(agent, 'models.json'), JSON.stringify({ providers: { fake: provider } }, null, 2));
    return;
  }
  const config = path.join(home, '.config', 'opencode');
  fs.mkdirSync(path.join(config, 'node_modules'), { recursive: true });
  fs.writeFileSync(path.join(config, 'package-lock.json'), JSON.stringify({ packages: { '': { dependencies: { '@opencode-ai/plugin': '*' } } } }));
  const file = path.join(config, 'opencode.json');
  const existing = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  fs.writeFileSync(
    file,
    JSON.stringify(
      {
        ...existing,
        model: 'fake/fake-model',
        small_model: 'fake/fake-model',
        autoupdate: false,
        share: 'disabled',
        provider: {
          fake: {
            npm: '@ai-sdk/openai-compatible',
            name: 'Fake',
            options: { baseURL: `http://127.0.0.1:${apiPort}/v1`, apiKey: 'fake-key-cfg' },
            models: { 'fake-model': { name: 'Fake Model', tool_call: true, limit: { context: 128000, output: 8192 } } },
          },
        },
      },
      null,
      2,
    ),
  );
}

export interface InProcessRunOptions {
  projectDir: string;
  home: string;
  apiPort: number;
  prompt?: string;
  env?: Record<string, string>;
  /** Other 127.0.0.1 ports the CLI must reach (the memtrace worker's HTTP port). */
  forwardPorts?: number[];
  timeoutMs?: number;
  /** Resolves when the run should be killed (SIGKILL to its process group), as a crash or a closed terminal would. */
  killWhen?: () => Promise<void>;
}

export interface InProcessRunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  killed: boolean;
}

function hostArgs(host: InProcessHost, prompt: string): string[] {
  return host === 'opencode' ? ['run', '--format', 'json', '--auto', prompt] : ['--provider', 'fake', '--model', 'fake-model', '--mode', 'json', prompt];
}

function hostEnv(host: InProcessHost, home: string): Record<string, string> {
  const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: path.join(home, 'tmp'), LANG: 'C.UTF-8', NO_COLOR: '1' };
  return host === 'opencode'
    ? { ...base, OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1' }
    : { ...base, PI_OFFLINE: '1', FAKE_API_KEY: 'fake-key' };
}

/** One scripted session of the host CLI inside the loopback-only namespace; stdin is /dev/null. */
export async function runInProcessHost(host: InProcessHost, options: InProcessRunOptions): Promise<InProcessRunResult> {
  fs.mkdirSync(path.join(options.home, 'tmp'), { recursive: true, mode: 0o700 });
  const socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mt-isock-'));
  const bridges: Array<{ close(): Promise<void> }> = [];
  const forwards: string[] = [];
  try {
    for (const port of [options.apiPort, ...(options.forwardPorts ?? [])]) {
      const socketPath = path.join(socketDir, `${port}.sock`);
      bridges.push(await bridgeUnixToTcp(socketPath, port));
      forwards.push('--forward', `${port}=${socketPath}`);
    }
    const outFile = path.join(socketDir, 'stdout');
    const errFile = path.join(socketDir, 'stderr');
    const out = fs.openSync(outFile, 'w');
    const err = fs.openSync(errFile, 'w');
    const started = performance.now();
    const args = hostArgs(host, options.prompt ?? HOST_PROMPT);
    const child = spawn('unshare', ['-n', process.execPath, SANDBOX, ...forwards, '--', IN_PROCESS_BINS[host], ...args], {
      cwd: options.projectDir,
      env: { ...hostEnv(host, options.home), ...options.env },
      stdio: ['ignore', out, err],
      detached: true, // its own process group, so a timeout or a kill reaches everything it started
    });
    fs.closeSync(out);
    fs.closeSync(err);
    let killed = false;
    const kill = () => {
      if (child.pid && child.exitCode === null) {
        killed = true;
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    };
    const timer = setTimeout(kill, options.timeoutMs ?? 180_000);
    void options.killWhen?.().then(kill);
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (c, s) => resolve({ code: c, signal: s }));
    }).finally(() => clearTimeout(timer));
    const wallMs = performance.now() - started;
    return { exitCode: code, signal, stdout: fs.readFileSync(outFile, 'utf8'), stderr: fs.readFileSync(errFile, 'utf8'), wallMs, killed };
  } finally {
    await Promise.all(bridges.map((b) => b.close()));
    fs.rmSync(socketDir, { recursive: true, force: true });
  }
}
