/**
 * SLOW (~30 s): the package as a user gets it. `npm pack`, install the tarball into a scratch
 * prefix (globally) and into a scratch project (as a dependency), and run the installed bins from
 * other directories: --help, a worker, a hook round trip, `telemetry status`, `npx telemetry status`.
 *
 * Dependencies come from npm's cache (`npm ci` filled it). Install scripts are skipped and the one
 * native addon (better-sqlite3, built by `npm ci` for this very Node) is copied in, because a
 * from-source build costs about 80 s here; memtrace itself has no install script, and
 * MEMTRACE_PACK_FULL=1 runs the real install with scripts.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FULL = process.env.MEMTRACE_PACK_FULL === '1';
const fixture = fs.readFileSync(path.join(ROOT, 'test/fixtures/claude-code/hooks/post-tool-use-read.json'), 'utf8');

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error', ...(FULL ? [] : ['--ignore-scripts', '--prefer-offline'])], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 600_000,
  });
}

/** The addon npm ci built here, for an install that skipped scripts. */
function provideNativeAddon(packageDir: string): void {
  if (FULL) return;
  const from = path.join(ROOT, 'node_modules/better-sqlite3/build');
  const to = path.join(packageDir, 'node_modules/better-sqlite3/build');
  const nested = fs.existsSync(path.dirname(to)) ? to : path.join(path.dirname(packageDir), 'better-sqlite3/build');
  fs.cpSync(from, nested, { recursive: true });
}

function run(file: string, args: string[], options: { cwd: string; env: Record<string, string>; input?: string }) {
  try {
    const stdout = execFileSync(file, args, {
      cwd: options.cwd,
      env: options.env,
      input: options.input ?? '',
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr: '' };
  } catch (error) {
    const e = error as { status: number; stdout: string; stderr: string };
    return { code: e.status, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('the packed package, installed', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let tarball: string;
  let prefix: string;
  let env: Record<string, string>;
  beforeAll(() => {
    temp = makeTempDir('memtrace-pack-');
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', temp.dir], { cwd: ROOT, encoding: 'utf8' }),
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarball = path.join(temp.dir, packed[0]!.filename);
    const files = packed[0]!.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/memtrace.cjs',
        'bin/telemetry.mjs',
        'dist/hook/hook.cjs',
        'dist/cli/main.js',
        '.claude-plugin/plugin.json',
        'hooks/hooks.json',
        'demo/replay.jsonl',
        'LICENSE',
        'README.md',
      ]),
    );
    expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/') || f.endsWith('.ts'))).toEqual([]);
    prefix = path.join(temp.dir, 'prefix');
    npm(['install', '--global', '--prefix', prefix, tarball], temp.dir);
    provideNativeAddon(path.join(prefix, 'lib/node_modules/memtrace'));
    env = {
      PATH: `${path.join(prefix, 'bin')}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: path.join(temp.dir, 'home'),
      MEMTRACE_DATA_DIR: path.join(temp.dir, 'data'),
      MEMTRACE_TELEMETRY: '0',
    };
    fs.mkdirSync(env.HOME!);
  }, 600_000);
  // Two installs' files to remove (about 22,000 files, 240 MB): 13 s at load 8 on this 2-core
  // machine, more than the default 30 s hook budget at load 20.
  afterAll(() => temp?.cleanup(), 180_000);

  it('answers --help from any directory, without tsx or the sources', () => {
    const help = run(path.join(prefix, 'bin/memtrace'), ['--help'], { cwd: env.HOME!, env });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: memtrace <command>');
    expect(fs.existsSync(path.join(prefix, 'lib/node_modules/memtrace/node_modules/tsx'))).toBe(false);
    expect(run(path.join(prefix, 'bin/memtrace'), ['hook', '--help'], { cwd: env.HOME!, env }).stdout).toContain('usage: memtrace hook');
  });

  it('runs a worker, takes a hook event round trip, and reports telemetry status', async () => {
    const worker = spawn(path.join(prefix, 'bin/memtrace'), ['worker', '--port', '0'], {
      cwd: env.HOME!,
      env: { ...env, MEMTRACE_PROVIDER: 'none' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    worker.stdout.on('data', (c: Buffer) => (output += c.toString()));
    worker.stderr.on('data', (c: Buffer) => (output += c.toString()));
    try {
      await waitFor(() => /listening on http:\/\/127\.0\.0\.1:(\d+)/.test(output), 20_000);
      const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)![1]!;
      const hook = run(path.join(prefix, 'bin/memtrace'), ['hook', 'post-tool-use', '--via', 'settings'], {
        cwd: temp.dir,
        env: { ...env, MEMTRACE_PORT: port },
        input: fixture,
      });
      expect(hook).toMatchObject({ code: 0, stdout: '' });
      const health = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as { queue_depth: number; hooks: { accepted: number } };
      expect(health).toMatchObject({ queue_depth: 1, hooks: { accepted: 1 } });
      const status = run(path.join(prefix, 'bin/telemetry'), ['status', '--json'], { cwd: temp.dir, env });
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ enabled: false, decided_by: 'MEMTRACE_TELEMETRY', worker: { running: true, port: Number(port) } });
    } finally {
      worker.kill('SIGTERM');
      await new Promise((resolve) => worker.once('exit', resolve));
    }
  });

  it('gives `npx telemetry status` inside a project that depends on it', () => {
    const project = path.join(temp.dir, 'some-project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'some-project', version: '1.0.0', private: true }));
    npm(['install', tarball], project);
    provideNativeAddon(path.join(project, 'node_modules/memtrace'));
    const npx = run('npx', ['--no-install', 'telemetry', 'status'], { cwd: project, env: { ...env, npm_config_update_notifier: 'false' } });
    expect(npx.code, npx.stderr).toBe(0);
    expect(npx.stdout).toContain('telemetry        off');
  }, 600_000);
});
