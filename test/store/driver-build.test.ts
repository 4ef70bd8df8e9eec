import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { completeDriverBuild } from '../../src/store/driver-build.js';
import { makeTempDir } from '../support/temp-dir.js';

const T0 = Date.UTC(2026, 10, 29, 9);

/**
 * Two memtrace processes meeting a skipped driver build (a hook's worker and the user's command):
 * one builds, the other says it waits and takes the result. Real files; the clock is given, and
 * the other process's end is played by the clock's own reading.
 */
describe('completing a skipped driver build while another process does it', () => {
  let temp: ReturnType<typeof makeTempDir> | undefined;
  afterEach(() => temp?.cleanup());

  function driverBeingBuilt() {
    temp = makeTempDir();
    const driverDir = path.join(temp.dir, 'node_modules', 'better-sqlite3');
    fs.mkdirSync(driverDir, { recursive: true });
    fs.writeFileSync(path.join(driverDir, '.memtrace-building'), String(T0));
    return driverDir;
  }

  it('says it waits, and takes the build the other process finished', () => {
    const driverDir = driverBeingBuilt();
    const progress: string[] = [];
    let reads = 0;
    const result = completeDriverBuild(driverDir, {
      progress: (line) => progress.push(line),
      env: {},
      execPath: process.execPath,
      nowMs: () => {
        // The other process finishes while this one waits: its build is there, its lock gone.
        if (++reads === 3) {
          fs.mkdirSync(path.join(driverDir, 'build', 'Release'), { recursive: true });
          fs.writeFileSync(path.join(driverDir, 'build', 'Release', 'better_sqlite3.node'), '');
          fs.rmSync(path.join(driverDir, '.memtrace-building'));
        }
        return T0 + 1_000;
      },
    });
    expect(result).toEqual({ built: true, how: 'compiled', ms: 0 });
    expect(progress).toEqual(["memtrace: another memtrace process is completing the SQLite driver's build; waiting for it…"]);
  });

  it('gives up on a build that never ends, saying so', () => {
    const driverDir = driverBeingBuilt();
    let reads = 0;
    const result = completeDriverBuild(driverDir, {
      progress: () => undefined,
      env: {},
      execPath: process.execPath,
      // Ten minutes pass while it waits.
      nowMs: () => (++reads < 3 ? T0 + 1_000 : T0 + 11 * 60_000),
    });
    expect(result).toEqual({ built: false, why: 'another process was building it and did not succeed' });
  });
});
