import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startCheckpointer } from '../../src/store/checkpointer.js';
import { openDatabase } from '../../src/store/index.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

describe('the background checkpointer', () => {
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(() => temp.cleanup());

  it('keeps copying a log that keeps growing back into the file, from its own thread, and truncates the log when stopped', async () => {
    temp = makeTempDir();
    const file = `${temp.dir}/store.db`;
    const db = openDatabase(file, { backgroundCheckpoints: true });
    db.exec('CREATE TABLE rows (body TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO rows (body) VALUES (?)');
    const errors: unknown[] = [];
    // The longest wait is far beyond the test: a second and third checkpoint come only if the
    // thread sees this connection's commits (the data version) and paces itself by them.
    const checkpointer = startCheckpointer(file, { pacing: { minMs: 50, maxMs: 600_000, targetFrames: 10 }, onError: (e) => errors.push(e) });
    const sizes = new Set<number>();
    let written = 0;
    try {
      // Nothing but the checkpointer copies pages into the main file (this connection never checkpoints).
      await waitFor(async () => {
        insert.run(`${written++}:${'x'.repeat(3_000)}`);
        sizes.add(fs.statSync(file).size);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return sizes.size >= 4;
      }, 20_000);
    } finally {
      await checkpointer.stop();
    }
    expect(fs.statSync(`${file}-wal`).size).toBe(0);
    expect(db.prepare('SELECT count(*) FROM rows').pluck().get()).toBe(written);
    db.close();
    expect(errors).toEqual([]);
  });
});
