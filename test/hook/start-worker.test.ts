import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeWorkerPackage } from '../../src/data-dir/index.js';
import { installToStart, newestInstall } from '../../src/hook/start-worker.js';
import { makeTempDir } from '../support/temp-dir.js';

function install(dir: string, version: string): string {
  fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'bin', 'memtrace.cjs'), '');
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'memtrace', version }));
  return path.join(dir, 'bin');
}

describe('which install a start runs', () => {
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(() => temp?.cleanup());

  it('is the newer of this one and the newest that ran here', () => {
    const own = { bin: '/p/bin', version: '0.2.0' };
    expect(newestInstall(own, { bin: '/g/bin', version: '0.3.0' })).toEqual({ bin: '/g/bin', version: '0.3.0' });
    expect(newestInstall(own, { bin: '/g/bin', version: '0.1.0' })).toBe(own);
    expect(newestInstall(own, { bin: '/g/bin', version: '0.2.0' })).toBe(own);
    expect(newestInstall(own, null)).toBe(own);
  });

  it('reads the newest that ran here as it is installed now: gone or downgraded, this one starts', () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    fs.mkdirSync(dataDir);
    const project = install(path.join(temp.dir, 'project/node_modules/memtrace'), '0.2.0');
    const global = install(path.join(temp.dir, 'global/memtrace'), '0.3.0');
    writeWorkerPackage(dataDir, { version: '0.3.0', bin: global });
    expect(installToStart(dataDir, path.join(project, 'memtrace.cjs'))).toEqual({ bin: global, version: '0.3.0' });
    install(path.join(temp.dir, 'global/memtrace'), '0.1.0');
    expect(installToStart(dataDir, path.join(project, 'memtrace.cjs'))).toEqual({ bin: project, version: '0.2.0' });
    fs.rmSync(path.join(temp.dir, 'global'), { recursive: true });
    expect(installToStart(dataDir, path.join(project, 'memtrace.cjs'))).toEqual({ bin: project, version: '0.2.0' });
  });
});
