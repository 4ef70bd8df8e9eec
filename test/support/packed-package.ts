import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FULL = process.env.MEMTRACE_PACK_FULL === '1';

/**
 * This checkout packed as npm packs it (`npm pack`), at any version, and installed with the real
 * npm: globally into a prefix, or into a project as a dependency, over an older install in place.
 * Dependencies come from npm's cache; install scripts are skipped and better-sqlite3's addon
 * (built by `npm ci` for this Node) is copied in, as test/e2e/package-install.test.ts does
 * (MEMTRACE_PACK_FULL=1 runs the real install scripts instead, about 80 s more per install).
 */
export interface PackedPackage {
  /** The tarball of this checkout at `version`. */
  tarball(version: string): string;
  /** Installs a tarball with `npm install --global --prefix`; returns the installed package's bin folder. */
  installGlobal(prefix: string, tarball: string): string;
  /** Installs a tarball into a project as a dependency; returns the installed package's bin folder. */
  installInProject(project: string, tarball: string): string;
}

export function packThisCheckout(workDir: string): PackedPackage {
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', workDir], { cwd: ROOT, encoding: 'utf8' }),
  ) as Array<{
    filename: string;
  }>;
  const original = path.join(workDir, packed[0]!.filename);
  const tarballs = new Map<string, string>();
  return {
    tarball(version) {
      let tarball = tarballs.get(version);
      if (tarball) return tarball;
      // The same files, another version in package.json: what a release of the next version holds here.
      const unpacked = fs.mkdtempSync(path.join(workDir, `unpacked-${version}-`));
      execFileSync('tar', ['-xzf', original, '-C', unpacked]);
      const manifest = path.join(unpacked, 'package', 'package.json');
      fs.writeFileSync(manifest, `${JSON.stringify({ ...JSON.parse(fs.readFileSync(manifest, 'utf8')), version }, null, 2)}\n`);
      tarball = path.join(workDir, `memtrace-${version}.tgz`);
      execFileSync('tar', ['-czf', tarball, '-C', unpacked, 'package']);
      tarballs.set(version, tarball);
      return tarball;
    },
    installGlobal(prefix, tarball) {
      npm(['install', '--global', '--prefix', prefix, tarball], workDir);
      return provideAddon(path.join(prefix, 'lib/node_modules/memtrace'));
    },
    installInProject(project, tarball) {
      fs.mkdirSync(project, { recursive: true });
      if (!fs.existsSync(path.join(project, 'package.json')))
        fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: path.basename(project), version: '1.0.0', private: true }));
      npm(['install', tarball], project);
      return provideAddon(path.join(project, 'node_modules/memtrace'));
    },
  };
}

function npm(args: string[], cwd: string): void {
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error', ...(FULL ? [] : ['--ignore-scripts', '--prefer-offline'])], {
    cwd,
    env: { ...process.env, npm_config_update_notifier: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 600_000,
  });
}

/** The addon `npm ci` built here, for an install that skipped scripts; the package's bin folder. */
function provideAddon(packageDir: string): string {
  if (!FULL) {
    const own = path.join(packageDir, 'node_modules/better-sqlite3');
    const target = fs.existsSync(own) ? own : path.join(path.dirname(packageDir), 'better-sqlite3');
    fs.cpSync(path.join(ROOT, 'node_modules/better-sqlite3/build'), path.join(target, 'build'), { recursive: true });
  }
  return path.join(packageDir, 'bin');
}
