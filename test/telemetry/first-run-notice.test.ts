import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { openStore } from '../../src/store/index.js';
import { createTelemetry, NOTICE } from '../../src/telemetry/runtime.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('first-run notice', () => {
  it('is shown once and recorded', async () => {
    const temp = makeTempDir();
    let stderr = '';
    for (let run = 0; run < 2; run += 1) {
      const store = openStore(path.join(temp.dir, 'memtrace.db'));
      const t = createTelemetry(
        { dataDir: temp.dir, env: {}, appVersion: '0.1.0', provider: 'none' },
        {
          db: store.db,
          clock: { now: () => 1 },
          log: silentLogger,
          stderr: {
            write: (s: string) => {
              stderr += s;
              return true;
            },
          },
          sink: null,
        },
      );
      t.start(1);
      await t.shutdown(2);
      store.close();
    }
    expect(stderr.split(NOTICE).length - 1).toBe(1);
    temp.cleanup();
  });
});
