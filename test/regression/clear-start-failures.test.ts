import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runWorkerToExit, startChildWorker, type ChildWorker } from '../support/child-worker.js';
import { makeTempDir } from '../support/temp-dir.js';

/**
 * Bug (issue 8, item 12): a read-only data dir reported `ENOENT … mkdir logs`; an unreadable
 * telemetry config turned telemetry off without a word.
 */
describe('failures at start say what is wrong in one line', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let child: ChildWorker | undefined;
  afterEach(async () => {
    await child?.stop();
    child = undefined;
    for (const dir of [temp.dir, path.join(temp.dir, 'ro')]) if (fs.existsSync(dir)) fs.chmodSync(dir, 0o700);
    temp?.cleanup();
  });

  it('a data dir that cannot be written', async () => {
    temp = makeTempDir();
    const readOnly = path.join(temp.dir, 'ro');
    fs.mkdirSync(readOnly);
    // Root ignores permission bits, so make the directory unusable as a directory instead.
    const dataDir = process.getuid?.() === 0 ? path.join(temp.dir, 'a-file') : readOnly;
    if (process.getuid?.() === 0) fs.writeFileSync(dataDir, 'not a directory');
    else fs.chmodSync(readOnly, 0o500);
    const run = await runWorkerToExit({ MEMTRACE_DATA_DIR: dataDir, MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '0' });
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`data dir ${dataDir} is not writable \\((EEXIST|ENOTDIR|EACCES|EROFS)\\); set MEMTRACE_DATA_DIR`));
  });

  it('a telemetry config that cannot be read', async () => {
    temp = makeTempDir();
    // A directory where the file should be fails to read for root and users alike.
    fs.mkdirSync(path.join(temp.dir, 'telemetry.json'));
    child = await startChildWorker({ MEMTRACE_DATA_DIR: temp.dir, MEMTRACE_PROVIDER: 'none' });
    const line = child
      .output()
      .split('\n')
      .find((l) => l.includes('telemetry is off'));
    expect(line).toBeDefined();
    expect(line).toContain(path.join(temp.dir, 'telemetry.json'));
    expect(line).toMatch(/cannot be read \(EISDIR\)/);
    const status = await fetch(`${child.url}/api/telemetry/status`, { headers: child.auth }).then((r) => r.json() as Promise<Record<string, unknown>>);
    expect(status).toMatchObject({ enabled: false, decided_by: 'config_error' });
  });
});
