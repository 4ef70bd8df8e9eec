import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileLogger } from '../../src/cli/file-logger.js';
import { MEMTRACE_BIN } from '../../src/cli/memtrace-bin.js';
import { loadWorkerConfig } from '../../src/config.js';
import { readAuthToken } from '../../src/data-dir/index.js';
import { createAnthropicProvider, createReplayProvider } from '../../src/providers/index.js';
import { startWorker, type RunningWorker } from '../../src/worker/runtime.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { freePort } from '../support/free-port.js';
import { observationXml } from '../support/replies.js';
import { nonSecrets, secretSamples, type SecretSample } from '../support/secret-samples.js';
import { makeTempDir } from '../support/temp-dir.js';
import { TranscriptBuilder } from '../support/transcripts.js';
import { IMMEDIATE_BATCHES, startHarness, type Harness } from '../support/worker-harness.js';
import { listSpool } from '../../src/data-dir/index.js';
import { hookCommand, runHookProcess } from '../support/hook-process.js';
import { holdWorkerStarts } from '../support/no-worker-starts.js';

/**
 * Secrets of every kind enter through every edge — a hook's spool while no worker runs, the hook
 * API, a mined transcript — and every file under the data dir is then read byte by byte, while
 * the worker runs and after it stops: not one secret may be there, nor in any request to the LLM.
 */
const canaries = (seed: number) => secretSamples(seed);

/** The secret and its two ends, so a value SQLite split across pages is still found. */
function needles(samples: readonly SecretSample[]): Array<{ kind: string; needle: Buffer }> {
  return samples.flatMap((s) =>
    [s.secret, ...(s.secret.length >= 40 ? [s.secret.slice(0, 24), s.secret.slice(-24)] : [])].map((n) => ({ kind: s.kind, needle: Buffer.from(n) })),
  );
}

function filesUnder(dir: string): string[] {
  // Every file that holds bytes: the worker's socket is an address, not content.
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : e.isFile() ? [path.join(dir, e.name)] : []));
}

function leaks(dataDir: string, samples: readonly SecretSample[]): string[] {
  const found: string[] = [];
  const all = needles(samples);
  for (const file of filesUnder(dataDir)) {
    const bytes = fs.readFileSync(file);
    for (const { kind, needle } of all) if (bytes.includes(needle)) found.push(`${path.relative(dataDir, file)}: ${kind}`);
  }
  return [...new Set(found)];
}

describe('canaries of every kind through every edge', () => {
  let temp: ReturnType<typeof makeTempDir> | undefined;
  let fake: FakeLlm | undefined;
  let worker: RunningWorker | undefined;
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await fake?.close();
    temp?.cleanup();
  });

  it('leaves no secret in the database, the WAL, the logs or the spool, nor in what the observer LLM is sent', { timeout: 120_000 }, async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    const projects = path.join(temp.dir, 'projects', '-work-app');
    fs.mkdirSync(projects, { recursive: true });
    const viaSpool = canaries(11);
    const viaApi = canaries(12);
    const viaTranscript = canaries(13);
    const viaForwarder = canaries(14);
    const everything = [...viaSpool, ...viaApi, ...viaTranscript, ...viaForwarder];

    // 1. The spool: no worker runs; the real hook (the bundled bin) keeps each event on disk.
    // (The worker is started in step 2, in this process: no hook may start one first.)
    holdWorkerStarts(dataDir);
    const closed = await freePort();
    const groups = [0, 8, 16, 24].map((at) => viaSpool.slice(at, at + 8));
    for (const [i, group] of groups.entries()) {
      const text = group.map((s) => s.text).join('\n');
      const input = {
        session_id: 'spooled',
        transcript_path: '/nonexistent.jsonl',
        cwd: '/work/app',
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_use_id: `toolu_spool_${i}`,
        tool_input: { command: text },
        tool_response: { stdout: text, stderr: '' },
      };
      const run = spawnSync(process.execPath, [MEMTRACE_BIN, 'hook', 'post-tool-use', '--via', 'settings'], {
        input: JSON.stringify(input),
        env: { ...process.env, MEMTRACE_PORT: String(closed), MEMTRACE_DATA_DIR: dataDir, HOME: temp.dir },
        encoding: 'utf8',
      });
      expect(run.status).toBe(0);
    }
    expect(listSpool(dataDir)).toHaveLength(groups.length);
    expect(leaks(dataDir, viaSpool)).toEqual([]);

    // 2. The worker starts (file log, telemetry on and local) and replays the spool.
    fake = await startFakeLlm('anthropic', { kind: 'text', text: observationXml({ type: 'discovery', title: 'Looked at config', narrative: 'n' }) });
    // One reply is prose that echoes a secret: it is dropped, and its logged preview must not hold it.
    fake.push({ kind: 'text', text: `I saw ${viaApi[0]!.secret} in the output.` });
    const loaded = loadWorkerConfig({ MEMTRACE_PORT: '0' }, '/nonexistent', { dataDir });
    if (!loaded.ok) throw new Error(loaded.errors.join());
    let stderr = '';
    const log = createFileLogger(dataDir, {
      write: (s: string) => {
        stderr += s;
        return true;
      },
    });
    worker = await startWorker({
      config: loaded.config,
      env: { MEMTRACE_TELEMETRY: '1' },
      provider: createAnthropicProvider({ apiKey: 'test-key', baseUrl: fake.url, timeoutMs: 5_000 }),
      log,
      stderr: {
        write: (s: string) => {
          stderr += s;
          return true;
        },
      },
      loop: { concurrency: 1, backoff: { baseMs: 20, capMs: 40 }, authProbe: { baseMs: 20, capMs: 40 } },
      batch: IMMEDIATE_BATCHES,
      watch: { dirs: [path.dirname(projects)], intervalMs: 3_600_000, idleMs: 0, firstPassDelayMs: 3_600_000, catchUpDelayMs: 3_600_000 },
    });
    const auth = { authorization: `Bearer ${readAuthToken(dataDir)}`, 'content-type': 'application/json' };
    const post = async (route: string, body: unknown) =>
      (await fetch(`${worker!.url}${route}`, { method: 'POST', headers: auth, body: JSON.stringify(body) })).status;

    // 3. The hook API: prompts, tool events, the last assistant message.
    expect(await post('/api/sessions/init', { session_id: 'api', prompt: viaApi.map((s) => s.text).join('\n'), cwd: '/work/app' })).toBe(200);
    for (const [i, s] of viaApi.entries()) {
      expect(
        await post('/api/sessions/observations', {
          session_id: 'api',
          tool_use_id: `toolu_api_${i}`,
          tool_name: 'Bash',
          tool_input: { command: s.text, headers: { Authorization: `Bearer ${s.secret}` } },
          tool_response: { stdout: s.text },
          cwd: '/work/app',
        }),
      ).toBe(202);
    }
    expect(await post('/api/sessions/summarize', { session_id: 'api', last_assistant_message: viaApi.map((s) => s.text).join('\n') })).toBe(202);

    // 3b. The hooks' own door: the shell forwarder `memtrace install` writes, over the data dir's socket.
    for (const [i, s] of viaForwarder.entries()) {
      const input = {
        session_id: 'forwarded',
        cwd: '/work/app',
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_use_id: `toolu_fwd_${i}`,
        tool_input: { command: s.text },
        tool_response: { stdout: s.text, stderr: '' },
      };
      // Not spawnSync: the worker answering the socket runs in this process.
      const run = await runHookProcess(hookCommand('forwarder', 'claude-code', 'post-tool-use'), Buffer.from(JSON.stringify(input)), {
        env: { MEMTRACE_DATA_DIR: dataDir, HOME: temp.dir },
      });
      expect(run.code).toBe(0);
    }

    // 4. A transcript holding them: mined into the same queue.
    const t = new TranscriptBuilder();
    t.prompt(viaTranscript.map((s) => s.text).join('\n'));
    for (const s of viaTranscript) t.call('Bash', { command: s.text }, { stdout: s.text, stderr: '', interrupted: false });
    t.text(viaTranscript.map((s) => s.text).join('\n'));
    t.writeTo(path.join(projects, `${t.sessionId}.jsonl`));
    const report = await worker.watcher.runPass();
    expect(report?.eventsQueued).toBe(viaTranscript.length);

    await waitDrained(worker);
    // While it runs: database, WAL, log, spool.
    expect(fs.existsSync(path.join(dataDir, 'memtrace.db-wal'))).toBe(true);
    expect(fs.existsSync(path.join(dataDir, 'logs', 'worker.log'))).toBe(true);
    expect(leaks(dataDir, everything)).toEqual([]);
    const sent = JSON.stringify(fake.requests.map((r) => r.body));
    expect(
      needles(everything)
        .filter(({ needle }) => sent.includes(needle.toString()))
        .map((n) => n.kind),
    ).toEqual([]);
    expect(sent).toContain('[REDACTED:github_token]');
    expect(stderr).not.toContain(viaApi[0]!.secret);

    // Counted, by edge and kind, as telemetry: counts only.
    const windows = (
      worker.store.db.prepare("SELECT state FROM telemetry_accumulators WHERE event = 'redaction_rollup' AND state IS NOT NULL").all() as Array<{
        state: string;
      }>
    ).map((r) => JSON.parse(r.state) as { dims: { edge: string }; counters: Record<string, number> });
    const byEdge = Object.fromEntries(windows.map((w) => [w.dims.edge, w.counters]));
    expect(Object.keys(byEdge).sort()).toEqual(['hook_api', 'transcript']);
    for (const s of [...viaApi, ...viaForwarder]) expect(byEdge.hook_api![s.kind]).toBeGreaterThan(0);
    const stored = worker.store.db.prepare("SELECT count(*) AS n FROM queue_seen WHERE session_id = 'forwarded'").get() as { n: number };
    expect(stored.n).toBe(viaForwarder.length);
    for (const s of viaTranscript) expect(byEdge.transcript![s.kind]).toBeGreaterThan(0);

    await worker.stop();
    worker = undefined;
    // After it stops (the WAL checkpointed into the file).
    expect(leaks(dataDir, everything)).toEqual([]);
  });
});

describe('false positives through the hook API', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  it('stores commit hashes, UUIDs, base64 images and long identifiers unchanged', async () => {
    // A provider that refuses, so every event stays in the queue to be read back.
    h = await startHarness(createReplayProvider({ lines: ['{"error":{"status":401,"type":"authentication_error"}}'] }));
    const cases = nonSecrets();
    for (const [i, c] of cases.entries()) {
      expect(
        (
          await h.post('/api/sessions/observations', {
            session_id: 'fp',
            tool_use_id: `toolu_fp_${i}`,
            tool_name: 'Bash',
            tool_input: { command: 'git log' },
            tool_response: { stdout: c.text },
            cwd: '/work/app',
          })
        ).status,
      ).toBe(202);
    }
    const stored = (h.worker.store.db.prepare("SELECT payload FROM queue WHERE session_id = 'fp' ORDER BY id").all() as Array<{ payload: string }>).map(
      (r) => (JSON.parse(r.payload) as { tool_response: { stdout: string } }).tool_response.stdout,
    );
    expect(stored).toEqual(cases.map((c) => c.text));
  });
});

async function waitDrained(worker: RunningWorker, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const health = (await (await fetch(`${worker.url}/health`)).json()) as { queue_depth: number; in_flight: number };
    if (health.queue_depth === 0 && health.in_flight === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`queue not drained within ${timeoutMs} ms`);
}
