import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findPackageRoot, isEphemeralInstall, settingsForwarder } from '../../src/install/package-root.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('findPackageRoot', () => {
  it('finds this repository from the source module', () => {
    expect(findPackageRoot()).toBe(path.resolve(import.meta.dirname, '../..'));
  });

  it('finds an installed package from its compiled dist/install module, past a nested package.json of another name', () => {
    const temp = makeTempDir('memtrace-root-');
    try {
      const pkg = path.join(temp.dir, 'project', 'node_modules', 'memtrace');
      fs.mkdirSync(path.join(pkg, 'dist', 'install'), { recursive: true });
      fs.writeFileSync(path.join(temp.dir, 'project', 'package.json'), '{"name":"my-app"}');
      fs.writeFileSync(path.join(pkg, 'package.json'), '{"name":"memtrace","version":"9.9.9"}');
      fs.writeFileSync(path.join(pkg, 'dist', 'package.json'), '{"type":"module"}');
      expect(findPackageRoot(path.join(pkg, 'dist', 'install', 'package-root.js'))).toBe(pkg);
      expect(() => findPackageRoot(path.join(temp.dir, 'project', 'src', 'x.js'))).toThrow('no package.json named memtrace above');
    } finally {
      temp.cleanup();
    }
  });
});

describe('settingsForwarder', () => {
  it("runs this node and the package entry by absolute, shell-quoted paths, and the data dir's native build first", () => {
    expect(settingsForwarder('/usr/bin/node', '/opt/memtrace', '/home/me/.memtrace')).toEqual({
      script: '/opt/memtrace/bin/memtrace-hook',
      bin: '/opt/memtrace/bin',
      node: '/usr/bin/node',
      native: { setup: '', file: '/home/me/.memtrace/bin/hook', dataDir: '/home/me/.memtrace' },
    });
    expect(settingsForwarder('/home/a b/node', '/home/a b/memtrace', '/home/a b/.memtrace')).toEqual({
      script: '"/home/a b/memtrace/bin/memtrace-hook"',
      bin: '"/home/a b/memtrace/bin"',
      node: '"/home/a b/node"',
      native: { setup: '', file: '"/home/a b/.memtrace/bin/hook"', dataDir: '"/home/a b/.memtrace"' },
    });
  });

  it('runs the script alone when there is no data dir to name', () => {
    expect(settingsForwarder('/usr/bin/node', '/opt/memtrace', null).native).toBeNull();
  });

  it('tells an npx cache install apart', () => {
    expect(isEphemeralInstall('/home/me/.npm/_npx/1f2e/node_modules/memtrace')).toBe(true);
    expect(isEphemeralInstall('/usr/lib/node_modules/memtrace')).toBe(false);
  });
});
