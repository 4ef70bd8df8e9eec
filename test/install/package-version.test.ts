import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPackageWatch, readInstalledPackage } from '../../src/install/package-version.js';
import { makeTempDir } from '../support/temp-dir.js';

/** A folder shaped like an installed memtrace: package.json beside bin/memtrace.cjs. */
function install(dir: string, manifest: Record<string, unknown>): string {
  fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'bin', 'memtrace.cjs'), '');
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest));
  return path.join(dir, 'bin');
}

describe('an installed memtrace, named by its bin folder', () => {
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(() => temp.cleanup());

  it('reads the version its package.json says now', () => {
    temp = makeTempDir();
    const bin = install(path.join(temp.dir, 'memtrace'), { name: 'memtrace', version: '0.3.0' });
    expect(readInstalledPackage(bin)).toEqual({ bin, version: '0.3.0' });
  });

  it('is nothing for another package, a relative path, a missing bin, or no folder at all', () => {
    temp = makeTempDir();
    expect(readInstalledPackage(install(path.join(temp.dir, 'other'), { name: 'other', version: '9.0.0' }))).toBeNull();
    expect(readInstalledPackage('node_modules/memtrace/bin')).toBeNull();
    const noBin = install(path.join(temp.dir, 'nobin'), { name: 'memtrace', version: '1.0.0' });
    fs.rmSync(path.join(noBin, 'memtrace.cjs'));
    expect(readInstalledPackage(noBin)).toBeNull();
    expect(readInstalledPackage(path.join(temp.dir, 'missing', 'bin'))).toBeNull();
  });

  it('sees an upgrade in place at the next look, and reads the file only when it changed', () => {
    temp = makeTempDir();
    const dir = path.join(temp.dir, 'memtrace');
    const bin = install(dir, { name: 'memtrace', version: '0.2.0' });
    const watch = createPackageWatch();
    expect(watch(bin)?.version).toBe('0.2.0');
    // npm replaces the files: a new package.json (another inode) with the new version.
    fs.rmSync(path.join(dir, 'package.json'));
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'memtrace', version: '0.3.0' }));
    expect(watch(bin)?.version).toBe('0.3.0');
    fs.rmSync(dir, { recursive: true });
    expect(watch(bin)).toBeNull();
  });
});
