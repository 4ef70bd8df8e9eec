import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startCheckpointer } from '../../src/store/checkpointer.js';
import { openDatabase } from '../../src/store/index.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

describe('the background checkpointer', () => {
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(() => temp.cleanup());

  it('copies a growing log back into the file from its own thread and truncates the log when stopped', async () => {
    temp = makeTempDir();
    const file = `${temp.dir}/store.db`;
    const db = openDatabase(file, { backgroundCheckpoints: true });
    db.exec('CREATE TABLE rows (body TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO rows (body) VALUES (?)');
    const errors: unknown[] = [];
    const checkpointer = startCheckpointer(file, { pacing: { minMs: 50, maxMs: 400, targetFrames: 20 }, onError: (e) => errors.push(e) });
    try {
      const before = fs.statSync(file).size;
      for (let i = 0; i < 200; i++) insert.run(`${i}:${'x'.repeat(3_000)}`);
      // Nothing but the checkpointer copies pages into the main file (this connection never checkpoints).
      await waitFor(() => fs.statSync(file).size > before + 200 * 3_000, 10_000);
    } finally {
      await checkpointer.stop();
    }
    expect(fs.statSync(`${file}-wal`).size).toBe(0);
    expect(db.prepare('SELECT count(*) FROM rows').pluck().get()).toBe(200);
    db.close();
    expect(errors).toEqual([]);
  });
});
