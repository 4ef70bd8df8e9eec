/**
 * SLOW (~1–2 min): memtrace installed by a package manager that skips dependencies' build scripts
 * (issue 35, item 8). The real pnpm 12.21.0 (installed from npm's cache into a scratch prefix) adds
 * the packed tarball to a scratch project and stops at ERR_PNPM_IGNORED_BUILDS, leaving
 * better-sqlite3 without its native addon; `npm install --ignore-scripts` of the same tarball does
 * the same. Then, from another directory:
 *   - with no way to build it (no network, no compiler on PATH): every command that needs the store
 *     says in one line the exact command that fixes it; none calls a store it cannot open empty, and
 *     the failed attempt is not repeated by every command;
 *   - with the driver's prebuilt binary reachable (a loopback mirror standing in for the GitHub
 *     release prebuild-install downloads from): memtrace completes the build itself on first use,
 *     with a progress line, and works; the fix command it names works too.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DRIVER,
  installPnpm,
  nodeOnlyPath,
  packTarball,
  QUIET_NPM as quiet,
  runAsync as run,
  startPrebuildMirror,
  type PrebuildMirror,
} from '../support/package-managers.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

describe('memtrace installed by a package manager that skipped the driver’s build', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let tarball: string;
  let pnpm: string;
  let mirror: PrebuildMirror;
  let mirrorUrl: string;

  beforeAll(async () => {
    temp = makeTempDir('memtrace-pm-');
    tarball = packTarball(temp.dir);
    pnpm = installPnpm(path.join(temp.dir, 'pnpm'));
    mirror = await startPrebuildMirror(temp.dir);
    mirrorUrl = mirror.url;
  }, 600_000);
  // Two installs' worth of files to remove: more than the default 30 s on a loaded machine.
  afterAll(async () => {
    await mirror?.close();
    temp?.cleanup();
  }, 300_000);

  /** A user's environment: this node and nothing else on PATH (no compiler, no python, no make), no network but loopback. */
  const userEnv = (extra: Record<string, string> = {}) => {
    const home = path.join(temp.dir, 'home');
    fs.mkdirSync(home, { recursive: true });
    return {
      PATH: nodeOnlyPath(temp.dir),
      HOME: home,
      MEMTRACE_DATA_DIR: path.join(temp.dir, 'data'),
      MEMTRACE_TELEMETRY: '0',
      npm_config_cache: path.join(temp.dir, 'npm-cache'),
      ...quiet,
      ...extra,
    };
  };

  it('pnpm add: says the one command that fixes it, everywhere the store is needed, then completes the build itself once a prebuilt is reachable', async () => {
    const project = path.join(temp.dir, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'project', version: '1.0.0', private: true }));
    const added = await run(pnpm, ['add', tarball], { cwd: project, env: { ...(process.env as Record<string, string>), ...quiet } });
    expect(`${added.stdout}${added.stderr}`).toContain('ERR_PNPM_IGNORED_BUILDS');
    const memtrace = path.join(project, 'node_modules/.bin/memtrace');
    const fix = `cd ${project} && pnpm approve-builds better-sqlite3`;
    const elsewhere = temp.dir;

    const search = await run(memtrace, ['search', 'anything'], { cwd: elsewhere, env: userEnv() });
    expect(search.code).toBe(1);
    expect(search.stdout).not.toContain('no memory stored yet');
    expect(search.stderr).toContain('completing it once now');
    expect(search.stderr).toContain(`memtrace search: the SQLite driver (better-sqlite3) cannot load: its native build was skipped when it was installed`);
    expect(search.stderr.trim().split('\n').at(-1)).toMatch(new RegExp(`Fix: ${fix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`));
    // The failed attempt is remembered: later commands say the fix at once, without trying again.
    for (const args of [
      ['search', 'anything'],
      ['worker', 'status'],
      ['worker', '--port', '0'],
    ]) {
      const again = await run(memtrace, args, { cwd: elsewhere, env: userEnv() });
      expect(again.code, args.join(' ')).toBe(1);
      expect(again.stderr, args.join(' ')).not.toContain('completing it once now');
      expect(again.stderr, args.join(' ')).toContain(`Fix: ${fix}`);
    }
    const doctor = await run(memtrace, ['doctor', '--json'], { cwd: elsewhere, env: userEnv() });
    expect(doctor.code).toBe(1);
    expect(JSON.parse(doctor.stdout).findings).toContainEqual(expect.objectContaining({ check: 'store', status: 'fail', fix }));

    // With the prebuilt reachable (and the record of the failure gone), the first command completes the build.
    const driverDir = fs.realpathSync(path.join(project, 'node_modules/.pnpm', `better-sqlite3@${DRIVER.version}`, 'node_modules/better-sqlite3'));
    fs.rmSync(path.join(driverDir, 'memtrace-build.json'));
    const withMirror = userEnv({ npm_config_better_sqlite3_binary_host: mirrorUrl });
    const first = await run(memtrace, ['search', 'anything'], { cwd: elsewhere, env: withMirror });
    expect(first.stderr).toContain('completing it once now');
    expect(first).toMatchObject({ code: 0, stdout: 'no memory stored yet.\n' });
    expect(mirror.requests.some((url) => url.endsWith('.tar.gz'))).toBe(true);
    const worker = spawn(memtrace, ['worker', '--port', '0'], {
      cwd: elsewhere,
      env: userEnv({ MEMTRACE_PROVIDER: 'none' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    worker.stdout.on('data', (c: Buffer) => (output += c.toString()));
    worker.stderr.on('data', (c: Buffer) => (output += c.toString()));
    try {
      await waitFor(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(output), 30_000);
      expect(output).not.toContain('completing it once now');
    } finally {
      worker.kill('SIGTERM');
      await new Promise((resolve) => worker.once('exit', resolve));
    }
  }, 600_000);

  it('npm install --ignore-scripts: names `npm rebuild better-sqlite3` in the package, and that command fixes it', async () => {
    const prefix = path.join(temp.dir, 'npm-global');
    execFileSync('npm', ['install', '--global', '--prefix', prefix, '--ignore-scripts', '--prefer-offline', '--loglevel=error', tarball], {
      env: { ...process.env, ...quiet },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 300_000,
    });
    const memtrace = path.join(prefix, 'bin/memtrace');
    const packageDir = path.join(prefix, 'lib/node_modules/memtrace');
    const fix = `cd ${packageDir} && npm rebuild better-sqlite3`;
    const env = userEnv({ MEMTRACE_DATA_DIR: path.join(temp.dir, 'data-npm') });
    const status = await run(memtrace, ['worker', 'status'], { cwd: temp.dir, env });
    expect(status.code).toBe(1);
    expect(status.stdout).not.toContain('not running');
    expect(status.stderr).toContain(`Fix: ${fix}`);

    // The command it names, run as the user would (with the prebuilt reachable), makes memtrace work.
    const rebuilt = await run('sh', ['-c', fix], {
      cwd: temp.dir,
      env: { ...env, PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, npm_config_better_sqlite3_binary_host: mirrorUrl },
    });
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    const search = await run(memtrace, ['search', 'anything'], { cwd: temp.dir, env });
    expect(search).toMatchObject({ code: 0, stdout: 'no memory stored yet.\n' });
  }, 600_000);
});
