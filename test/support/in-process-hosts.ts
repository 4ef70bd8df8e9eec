/**
 * Runs the REAL OpenCode 1.18.33 (`opencode-ai`, its platform binary) or pi 0.73.1
 * (`@mariozechner/pi-coding-agent`), pinned devDependencies, offline against the fake model API
 * of shared/hosts (test/support/hosts/opencode-copilot-pi-fake-api.mjs), inside a loopback-only network
 * namespace as the other host tests do (loopback-sandbox.mjs forwards the fake API's port and
 * the worker's; the plugin reaches the worker over its Unix socket, which crosses namespaces).
 * Each run has a scratch HOME holding the user's own setup: the fake provider, and for OpenCode
 * its plugin dependencies pre-seeded (offline, OpenCode otherwise retries an npm install of its
 * plugin package for ~70 s at every start: AGENT-HOSTS-2.md §2.7; that is OpenCode's, not memtrace's).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loopbackSandboxAvailable } from './claude-code.js';
import { runInLoopbackSandbox, startFakeApiFile, type FakeApi, type FakeApiOptions, type HostRunOptions } from './host-cli.js';

export type { FakeApi } from './host-cli.js';

export type InProcessHost = 'opencode' | 'pi';

const ROOT = path.resolve(import.meta.dirname, '../..');
const OPENCODE_BINARY = path.join(ROOT, 'node_modules/opencode-linux-x64/bin/opencode');
export const IN_PROCESS_BINS: Readonly<Record<InProcessHost, string>> = {
  // The platform binary itself (what the opencode-ai postinstall links as bin/opencode).
  opencode: fs.existsSync(OPENCODE_BINARY) ? OPENCODE_BINARY : path.join(ROOT, 'node_modules/.bin/opencode'),
  pi: path.join(ROOT, 'node_modules/.bin/pi'),
};
const FAKE_API = path.join(import.meta.dirname, 'hosts/opencode-copilot-pi-fake-api.mjs');
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

/** The fake model API (the same file as Copilot's); `script` steps are `{call, args}`, `{calls}` or `{text}` (see the file's header). */
export function startFakeModelApi(options: FakeApiOptions & { script: unknown[] }): Promise<FakeApi> {
  return startFakeApiFile(FAKE_API, options);
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

/** The same options as a command-hook host's run (host-cli.ts). */
export type InProcessRunOptions = HostRunOptions;

export interface InProcessRunResult {
  exitCode: number | null;
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
  const run = await runInLoopbackSandbox(IN_PROCESS_BINS[host], hostArgs(host, options.prompt ?? HOST_PROMPT), {
    cwd: options.projectDir,
    env: { ...hostEnv(host, options.home), ...options.env },
    ports: [options.apiPort, ...(options.forwardPorts ?? [])],
    timeoutMs: options.timeoutMs ?? 180_000,
    ...(options.killWhen ? { killWhen: options.killWhen } : {}),
  });
  return { exitCode: run.exitCode, stdout: run.stdout, stderr: run.stderr, wallMs: run.wallMs, killed: run.killedAt === 'asked' };
}
