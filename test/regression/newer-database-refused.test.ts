import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, openDatabase } from '../../src/store/index.js';
import { runWorkerToExit } from '../support/child-worker.js';
import { makeTempDir } from '../support/temp-dir.js';

/** Bug (issue 8, item 5): a database written by a newer memtrace was opened and written. */
describe('a database from a newer memtrace', () => {
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(() => temp?.cleanup());

  it('stops the worker with one line naming the version that wrote it, and changes no byte', async () => {
    temp = makeTempDir();
    const file = path.join(temp.dir, 'memtrace.db');
    const db = openDatabase(file, { migrations: [...MIGRATIONS, { id: '0900_from_the_future', up: (d) => d.exec('CREATE TABLE future (x)') }] });
    db.prepare("UPDATE store_meta SET value = '3.0.0' WHERE key = 'written_by'").run();
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const hash = () => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
    const before = hash();
    const run = await runWorkerToExit({ MEMTRACE_DATA_DIR: temp.dir, MEMTRACE_PROVIDER: 'none', MEMTRACE_TELEMETRY: '0' });
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('memtrace 3.0.0');
    expect(lines[0]).toContain('0900_from_the_future');
    expect(hash()).toBe(before);
  });
});
