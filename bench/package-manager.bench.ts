/**
 * `npm run bench -- package-manager`: what a user pays when their package manager skips
 * better-sqlite3's build (issue 35, item 8), measured with the real pnpm 12.21.0 and npm.
 *
 *   npm_ignore_scripts_install_s  `npm install -g --ignore-scripts` of the packed tarball
 *   pnpm_add_s                    `pnpm add` of it in a scratch project (ends ERR_PNPM_IGNORED_BUILDS)
 *   first_use_prebuilt_s          the first `memtrace search` after pnpm add: memtrace completes the
 *                                 build from the driver's prebuilt (served on loopback, as GitHub would)
 *   later_use_s                   the same command once built; baseline `node -e 0` in the same run
 *   compile_s                     (BENCH_PM_COMPILE=1) the first use with no prebuilt reachable:
 *                                 node-gyp against node's own headers, all the CPU it takes
 *   libsql_pnpm_add_s             (BENCH_PM_LIBSQL=1) `pnpm add libsql@0.5.29`, the prebuilt-binary
 *                                 driver measured as the alternative (installs with no ignored build)
 *
 * Knobs: BENCH_PM_ROUNDS (default 1; each round installs afresh), BENCH_PM_COMPILE, BENCH_PM_LIBSQL.
 * Installs come from npm's cache where it has them (--prefer-offline); libsql needs the registry.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DRIVER, installPnpm, nodeOnlyPath, packTarball, QUIET_NPM, runAsync, startPrebuildMirror } from '../test/support/package-managers.js';
import { makeTempDir } from '../test/support/temp-dir.js';

export const name = 'package-manager';

const ROUNDS = Number(process.env.BENCH_PM_ROUNDS ?? 1);
const COMPILE = process.env.BENCH_PM_COMPILE === '1';
const LIBSQL = process.env.BENCH_PM_LIBSQL === '1';

/** Seconds: min, median, max over the rounds. */
function spread(samples: number[]): { min: number; median: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 100) / 100;
  return { min: r(sorted[0]!), median: r(sorted[Math.floor((sorted.length - 1) / 2)]!), max: r(sorted[sorted.length - 1]!) };
}

async function timed(fn: () => Promise<{ code: number | null; stderr: string }>): Promise<number> {
  const started = performance.now();
  const r = await fn();
  const seconds = (performance.now() - started) / 1000;
  if (r.code !== 0 && !r.stderr.includes('ERR_PNPM_IGNORED_BUILDS')) throw new Error(`failed (${r.code}): ${r.stderr.slice(-400)}`);
  return seconds;
}

export async function run(): Promise<Record<string, unknown>> {
  const temp = makeTempDir('memtrace-pm-bench-');
  const mirror = await startPrebuildMirror(temp.dir);
  try {
    const tarball = packTarball(temp.dir);
    const pnpm = installPnpm(path.join(temp.dir, 'pnpm'));
    const env = { ...process.env, ...QUIET_NPM } as Record<string, string>;
    const figures: Record<string, number[]> = { node_s: [], npm_ignore_scripts_install_s: [], pnpm_add_s: [], first_use_prebuilt_s: [], later_use_s: [] };
    if (COMPILE) figures.compile_s = [];
    if (LIBSQL) figures.libsql_pnpm_add_s = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const dir = path.join(temp.dir, `round-${round}`);
      fs.mkdirSync(path.join(dir, 'project'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'project/package.json'), JSON.stringify({ name: 'project', version: '1.0.0', private: true }));
      const opts = { cwd: dir, env };
      figures.node_s!.push(await timed(() => runAsync(process.execPath, ['-e', '0'], opts)));
      figures.npm_ignore_scripts_install_s!.push(
        await timed(() =>
          runAsync(
            'npm',
            ['install', '--global', '--prefix', path.join(dir, 'npm'), '--ignore-scripts', '--prefer-offline', '--loglevel=error', tarball],
            opts,
          ),
        ),
      );
      figures.pnpm_add_s!.push(await timed(() => runAsync(pnpm, ['add', tarball], { cwd: path.join(dir, 'project'), env })));
      const memtrace = path.join(dir, 'project/node_modules/.bin/memtrace');
      const user = {
        ...QUIET_NPM,
        HOME: dir,
        MEMTRACE_DATA_DIR: path.join(dir, 'data'),
        MEMTRACE_TELEMETRY: '0',
        npm_config_cache: path.join(dir, 'npm-cache'),
      };
      const driverDir = fs.realpathSync(path.join(dir, 'project/node_modules/.pnpm', `better-sqlite3@${DRIVER.version}`, 'node_modules/better-sqlite3'));
      if (COMPILE) {
        // A full PATH (compiler, make, python) and no prebuilt: node-gyp compiles it.
        figures.compile_s!.push(await timed(() => runAsync(memtrace, ['search', 'x'], { cwd: dir, env: { ...user, PATH: process.env.PATH } })));
        fs.rmSync(path.join(driverDir, 'build'), { recursive: true, force: true });
        fs.rmSync(path.join(driverDir, 'memtrace-build.json'), { force: true });
      }
      const withMirror = { ...user, PATH: nodeOnlyPath(dir), npm_config_better_sqlite3_binary_host: mirror.url };
      figures.first_use_prebuilt_s!.push(await timed(() => runAsync(memtrace, ['search', 'x'], { cwd: dir, env: withMirror })));
      figures.later_use_s!.push(await timed(() => runAsync(memtrace, ['search', 'x'], { cwd: dir, env: withMirror })));
      if (LIBSQL) {
        const libsqlDir = path.join(dir, 'libsql');
        fs.mkdirSync(libsqlDir);
        fs.writeFileSync(path.join(libsqlDir, 'package.json'), JSON.stringify({ name: 'l', version: '1.0.0', private: true }));
        figures.libsql_pnpm_add_s!.push(await timed(() => runAsync(pnpm, ['add', 'libsql@0.5.29'], { cwd: libsqlDir, env })));
      }
    }
    const medians = Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, spread(v)]));
    const median = (k: string) => medians[k]!.median;
    return {
      rounds: ROUNDS,
      loadavg: fs.readFileSync('/proc/loadavg', 'utf8').trim(),
      ...medians,
      first_use_over_later_use: Math.round((median('first_use_prebuilt_s') / median('later_use_s')) * 10) / 10,
      later_use_over_node: Math.round((median('later_use_s') / median('node_s')) * 10) / 10,
      pnpm_add_over_npm_install: Math.round((median('pnpm_add_s') / median('npm_ignore_scripts_install_s')) * 100) / 100,
      pnpm_version: spawnSync(pnpm, ['--version'], { encoding: 'utf8' }).stdout.trim(),
    };
  } finally {
    await mirror.close();
    temp.cleanup();
  }
}
