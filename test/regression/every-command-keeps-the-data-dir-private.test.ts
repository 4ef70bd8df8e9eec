import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/context/index.js';
import { readWorkerInfo } from '../../src/data-dir/index.js';
import { openStore } from '../../src/store/index.js';
import { startChildWorker } from '../support/child-worker.js';
import { seedObservations } from '../support/compaction-fixtures.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { freePort } from '../support/free-port.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { toolEvent } from '../support/worker-harness.js';

/**
 * Bug (issue 17, item 6): `memtrace collector` created DATA_DIR 0755 and collector.db 0644, and
 * `memtrace telemetry disable` on a fresh install created DATA_DIR 0755. Every command that
 * creates the data dir or a file in it now goes through one helper (src/data-dir/private-files.ts).
 * Each command runs here as a real process under umask 022 on a fresh data dir, which is then walked.
 */
const BIN = path.resolve(import.meta.dirname, '../../bin/memtrace.cjs');
const UMASK = '022';
const TRANSCRIPTS = path.resolve(import.meta.dirname, '../fixtures/claude-code');

function run(args: string[], env: Record<string, string>, stdin = ''): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', `umask ${UMASK} && exec "$0" "$@"`, process.execPath, BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
    child.stdin.end(stdin);
  });
}

/** Every entry under dir whose mode is not 0700 (directories) or 0600 (files), as "path mode". */
function notPrivate(dir: string): string[] {
  const wrong: string[] = [];
  const walk = (at: string) => {
    const stat = fs.lstatSync(at);
    const mode = stat.mode & 0o777;
    if (stat.isDirectory()) {
      if (mode !== 0o700) wrong.push(`${path.relative(dir, at) || '.'} ${mode.toString(8)}`);
      for (const name of fs.readdirSync(at)) walk(path.join(at, name));
    } else if (stat.isSymbolicLink()) {
      // A link's own mode means nothing (access goes by its target, listed on its own): named with where it points.
      wrong.push(`${path.relative(dir, at)} -> ${fs.readlinkSync(at)}`);
    } else if (mode !== 0o600) wrong.push(`${path.relative(dir, at)} ${mode.toString(8)}`);
  };
  walk(dir);
  return wrong;
}

describe(`every command on a fresh data dir under umask ${UMASK}`, () => {
  let temp: ReturnType<typeof makeTempDir>;
  let llm: FakeLlm;
  beforeAll(async () => {
    temp = makeTempDir();
    llm = await startFakeLlm('anthropic', { kind: 'text', text: 'The retry path re-reads the queue row and backs off.' });
  });
  afterAll(async () => {
    await llm.close();
    temp.cleanup();
  });

  let n = 0;
  /** A data dir that does not exist yet, two levels below an existing folder. */
  const freshDataDir = () => path.join(temp.dir, `home-${++n}`, '.memtrace');
  const baseEnv = (dataDir: string) => ({ HOME: temp.dir, MEMTRACE_DATA_DIR: dataDir, MEMTRACE_TELEMETRY: '0', MEMTRACE_PROVIDER: 'none' });

  it.each([
    ['telemetry disable', ['telemetry', 'disable']],
    ['telemetry enable', ['telemetry', 'enable']],
    ['telemetry status', ['telemetry', 'status']],
    ['collector --simulate --exit', ['collector', '--simulate', '--exit', '--installs', '2', '--weeks', '2']],
    ['mine', ['mine', '--dir', TRANSCRIPTS]],
  ])('%s makes the data dir 0700 and every file 0600', async (_name, args) => {
    const dataDir = freshDataDir();
    const result = await run(args, baseEnv(dataDir));
    expect(result.code, result.output).toBe(0);
    expect(fs.existsSync(dataDir)).toBe(true);
    expect(notPrivate(path.dirname(dataDir))).toEqual([]);
  });

  it('hook, with no worker to take the event, spools it privately', async () => {
    const dataDir = freshDataDir();
    const env = { ...baseEnv(dataDir), MEMTRACE_PORT: String(await freePort()) };
    const event = {
      session_id: 's',
      hook_event_name: 'PostToolUse',
      tool_use_id: 'toolu_1',
      tool_name: 'Read',
      tool_input: { file_path: 'a.ts' },
      tool_response: { content: 'x' },
      cwd: temp.dir,
    };
    const result = await run(['hook', 'post-tool-use'], env, JSON.stringify(event));
    expect(result.code, result.output).toBe(0);
    expect(fs.readdirSync(path.join(dataDir, 'spool')).length).toBeGreaterThan(0);
    // The hook also started the missing worker (issue 35): its files are checked too, once it is stopped.
    await waitFor(() => readWorkerInfo(dataDir)?.port != null, 30_000);
    expect((await run(['worker', 'stop'], env)).code).toBe(0);
    expect(notPrivate(path.dirname(dataDir))).toEqual([]);
  });

  it('install builds its hook forwarder there, a program only its owner can read or run', async () => {
    const dataDir = freshDataDir();
    const project = path.join(temp.dir, `project-${n}`);
    fs.mkdirSync(project);
    const result = await run(['install', '--project', project], baseEnv(dataDir));
    expect(result.code, result.output).toBe(0);
    const program = fs.readdirSync(path.join(dataDir, 'bin')).find((name) => name.startsWith('hook-'))!;
    expect(result.output).toContain(`hook forwarder: built ${path.join(dataDir, 'bin', program)}`);
    // bin/hook, which the hook commands run, links to it.
    expect(notPrivate(path.dirname(dataDir)).sort()).toEqual([`.memtrace/bin/hook -> ${program}`, `.memtrace/bin/${program} 700`]);
  });

  it('worker start and worker stop (the background worker and its output file)', async () => {
    const dataDir = freshDataDir();
    const env = { ...baseEnv(dataDir), MEMTRACE_PORT: '0' };
    const started = await run(['worker', 'start'], env);
    expect(started.code, started.output).toBe(0);
    const stopped = await run(['worker', 'stop'], env);
    expect(stopped.code, stopped.output).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'logs', 'worker.out'))).toBe(true);
    expect(notPrivate(path.dirname(dataDir))).toEqual([]);
  });

  it('worker, then repair apply with its backup', async () => {
    const dataDir = freshDataDir();
    const child = await startChildWorker(baseEnv(dataDir), { umask: UMASK });
    const res = await fetch(`${child.url}/api/sessions/observations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...child.auth },
      body: JSON.stringify(toolEvent('s', 1)),
    });
    expect(res.status).toBe(202);
    await child.stop();
    expect(notPrivate(path.dirname(dataDir))).toEqual([]);

    // A legacy fallback leaf over real observations, for repair to rewrite after its backup.
    const store = openStore(path.join(dataDir, 'memtrace.db'));
    try {
      const ids = seedObservations(store, 'app', 4);
      const content = `[discovery] Finding 0 about the retry path\n[Truncated from 700 tokens]`;
      const leaf = Number(
        store.db
          .prepare(
            "INSERT INTO memory_summaries (project, kind, depth, level, content, token_count, source_token_count, first_observation_id, last_observation_id, observation_count, earliest_at, latest_at, created_at, updated_at) VALUES ('app', 'leaf', 0, 'fallback', ?, ?, 0, ?, ?, ?, 0, 0, 0, 0)",
          )
          .run(content, estimateTokens(content), ids[0], ids.at(-1), ids.length).lastInsertRowid,
      );
      for (const [ordinal, id] of ids.entries())
        store.db.prepare('INSERT INTO summary_sources (summary_id, ordinal, observation_id) VALUES (?, ?, ?)').run(leaf, ordinal, id);
    } finally {
      store.close();
    }
    const repair = await run(['repair', 'apply'], { ...baseEnv(dataDir), MEMTRACE_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: llm.url });
    expect(repair.code, repair.output).toBe(0);
    expect(fs.readdirSync(dataDir).some((name) => name.includes('.repair-'))).toBe(true);
    expect(notPrivate(path.dirname(dataDir))).toEqual([]);
  });
});
