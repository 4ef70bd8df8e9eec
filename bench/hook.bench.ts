import { spawn } from 'node:child_process';
import { startInstalledWorker } from './installed-worker.js';
import fs from 'node:fs';
import path from 'node:path';
import { writeContextFile } from '../src/data-dir/index.js';
import { forwarderCommand, shellQuote } from '../src/install/hook-definitions.js';
import { settingsForwarder } from '../src/install/package-root.js';
import { buildNativeForwarderInto } from '../test/support/native-forwarder.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { pathWithoutPerl } from '../test/support/tool-path.js';
import { pairedRatio, roundedPercentile } from './stats.js';

export const name = 'hook';

const ROOT = path.resolve(import.meta.dirname, '..');
const RUNS = Number(process.env.BENCH_HOOK_RUNS ?? 40);
const FORWARDER = path.join(ROOT, 'bin/memtrace-hook');

interface Sample {
  wallMs: number;
  cpuMs: number;
}

/**
 * What one hook firing costs the agent, as whole processes started the way an agent host starts
 * them (a new process, the payload on stdin, through `sh -c`), against a live worker in its own
 * process. Interleaved in one run, so drift hits every command alike:
 * - yardsticks: `true` (what a host's floor hook costs a firing, issue 36), `node -e 0` (with this
 *   machine's environment, NODE_EXTRA_CA_CERTS included when set) and `curl` of the worker's
 *   /health on loopback;
 * - the forwarder `memtrace install` writes (a shell starting the native forwarder install
 *   built, over the data dir's socket), for a tool event and for SessionStart (which waits for
 *   the context); the same where no C compiler was found (a shell handing over to perl), and on
 *   a machine without perl either (a shell and curl);
 * - each as a host runs it, its shell (`sh -c`) given the command (`host_*`, against `sh -c true`,
 *   `over_host_true_ms`): the script install wrote before, and the command it writes now, whose
 *   shell execs the native build itself;
 * - the Node hook (the forwarder's fallback), for a tool event;
 * - a cold SessionStart: no worker running, the context kept for the directory printed by the
 *   forwarder; the background part (spooling, starting the worker) does not block the agent and
 *   is left out by giving the forwarder a node that does nothing.
 */
export async function run(): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-hook-bench-');
  const dataDir = path.join(temp.dir, 'data');
  const coldDir = path.join(temp.dir, 'cold');
  const project = path.join(temp.dir, 'project');
  fs.mkdirSync(project);
  const worker = await startInstalledWorker({ MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '0' });
  fs.mkdirSync(coldDir, { mode: 0o700 });
  buildNativeForwarderInto(dataDir);
  buildNativeForwarderInto(coldDir);
  // A data dir with no native build whose socket is the worker's: the forwarder as it runs where
  // install found no C compiler.
  const withoutNative = path.join(temp.dir, 'no-native');
  fs.mkdirSync(withoutNative, { mode: 0o700 });
  fs.symlinkSync(path.join(dataDir, 'worker.sock'), path.join(withoutNative, 'worker.sock'));
  writeContextFile(
    coldDir,
    project,
    `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: `# memtrace context\n${'- an observation worth remembering\n'.repeat(60)}` } })}\n`,
  );
  const fixture = (file: string) => fs.readFileSync(path.join(ROOT, 'test/fixtures/claude-code/hooks', file), 'utf8').replaceAll('/home/user/project', project);
  const toolPayload = path.join(temp.dir, 'tool.json');
  const startPayload = path.join(temp.dir, 'start.json');
  fs.writeFileSync(startPayload, fixture('session-start.json'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: temp.dir,
    MEMTRACE_DATA_DIR: dataDir,
    ...(process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {}),
  };
  const node = process.execPath;
  const withoutPerl = pathWithoutPerl();
  const installed = (event: string) => forwarderCommand(settingsForwarder(node, ROOT, dataDir), 'claude-code', event, 'settings');
  const commands: Record<string, { command: string; stdin: string; env?: Record<string, string> }> = {
    true_hook: { command: 'true', stdin: toolPayload },
    node_e_0: { command: `"${node}" -e 0`, stdin: toolPayload },
    curl_loopback: { command: `curl -s -o /dev/null ${worker.url}/health`, stdin: toolPayload },
    forwarder_tool_event: { command: `sh "${FORWARDER}" claude-code post-tool-use settings "${node}"`, stdin: toolPayload },
    forwarder_session_start: { command: `sh "${FORWARDER}" claude-code session-start settings "${node}"`, stdin: startPayload },
    forwarder_perl_tool_event: {
      command: `sh "${FORWARDER}" claude-code post-tool-use settings "${node}"`,
      stdin: toolPayload,
      env: { MEMTRACE_DATA_DIR: withoutNative },
    },
    forwarder_perl_session_start: {
      command: `sh "${FORWARDER}" claude-code session-start settings "${node}"`,
      stdin: startPayload,
      env: { MEMTRACE_DATA_DIR: withoutNative },
    },
    // Without perl either: a shell and curl.
    forwarder_curl_tool_event: {
      command: `sh "${FORWARDER}" claude-code post-tool-use settings "${node}"`,
      stdin: toolPayload,
      env: { PATH: withoutPerl, MEMTRACE_DATA_DIR: withoutNative },
    },
    forwarder_curl_session_start: {
      command: `sh "${FORWARDER}" claude-code session-start settings "${node}"`,
      stdin: startPayload,
      env: { PATH: withoutPerl, MEMTRACE_DATA_DIR: withoutNative },
    },
    // As a host runs each: its shell (`sh -c`) given the command. The floor's `true`, the script
    // install wrote before, and the command it writes now (the native build exec'd by that shell).
    host_true: { command: 'sh -c true', stdin: toolPayload },
    host_script_tool_event: { command: `sh -c ${shellQuote(`sh "${FORWARDER}" claude-code post-tool-use settings "${node}"`)}`, stdin: toolPayload },
    host_installed_tool_event: { command: `sh -c ${shellQuote(installed('post-tool-use'))}`, stdin: toolPayload },
    host_installed_session_start: { command: `sh -c ${shellQuote(installed('session-start'))}`, stdin: startPayload },
    node_hook_tool_event: { command: `"${node}" "${path.join(ROOT, 'bin/memtrace.cjs')}" hook post-tool-use --via settings`, stdin: toolPayload },
    cold_session_start: { command: `sh "${FORWARDER}" claude-code session-start settings /bin/true`, stdin: startPayload, env: { MEMTRACE_DATA_DIR: coldDir } },
  };
  const samples: Record<string, Sample[]> = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  try {
    for (let i = -3; i < RUNS; i += 1) {
      // A new tool_use_id per run: every call is a real accepted event, not a duplicate.
      fs.writeFileSync(toolPayload, fixture('post-tool-use-read.json').replace('toolu_e2e_read', `toolu_bench_${i + 3}`));
      for (const [key, c] of Object.entries(commands)) {
        const sample = await timeOnce(c.command, c.stdin, { ...env, ...c.env }, project);
        if (i >= 0) samples[key]!.push(sample);
      }
    }
    const health = (await (await fetch(`${worker.url}/health`)).json()) as { hooks: { accepted: number; rejected: number } };
    const med = (xs: number[]) => roundedPercentile(xs, 50);
    const p95 = (xs: number[]) => roundedPercentile(xs, 95);
    const pairRatio = (a: Sample[], b: Sample[]) =>
      pairedRatio(
        a.map((x) => x.wallMs),
        b.map((x) => x.wallMs),
      );
    const overMs = (a: Sample[], base: Sample[]) => Math.round((med(a.map((x) => x.wallMs)) - med(base.map((x) => x.wallMs))) * 100) / 100;
    const figures = Object.fromEntries(
      Object.entries(samples).map(([key, s]) => [
        key,
        {
          wall_p50_ms: med(s.map((x) => x.wallMs)),
          wall_p95_ms: p95(s.map((x) => x.wallMs)),
          cpu_p50_ms: med(s.map((x) => x.cpuMs)),
          over_true_ms: overMs(s, samples.true_hook!),
          vs_true: pairRatio(s, samples.true_hook!),
          over_host_true_ms: overMs(s, samples.host_true!),
          vs_node_e_0: pairRatio(s, samples.node_e_0!),
          vs_curl: pairRatio(s, samples.curl_loopback!),
        },
      ]),
    );
    return {
      runs: RUNS,
      node_extra_ca_certs: Boolean(process.env.NODE_EXTRA_CA_CERTS),
      ...figures,
      target: 'the synchronous path at most about 30 ms median (the order of curl to loopback)',
      worker_accepted: health.hooks.accepted,
      worker_rejected: health.hooks.rejected,
    };
  } finally {
    await worker.stop();
    temp.cleanup();
  }
}

/** Runs `command < stdinFile` under bash in `cwd` and reads the child's CPU time from `times`. */
function timeOnce(command: string, stdinFile: string, env: Record<string, string>, cwd: string): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('/bin/bash', ['-c', `${command} < "${stdinFile}" >/dev/null 2>"${stdinFile}.err"; times`], {
      env,
      cwd,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', () => {
      const wallMs = performance.now() - started;
      // `times` prints the shell's own times, then its children's: "0m0.031s 0m0.008s".
      const children = out.trim().split('\n').at(-1) ?? '';
      const m = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s/.exec(children);
      const err = fs.existsSync(`${stdinFile}.err`) ? fs.readFileSync(`${stdinFile}.err`, 'utf8').trim() : '';
      if (err !== '') return reject(new Error(`${command} printed: ${err}`));
      if (!m) return reject(new Error(`no times output: ${out}`));
      resolve({ wallMs, cpuMs: (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000 });
    });
  });
}
