import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { seedShop } from './memory-fixtures.js';
import { startOtlpReceiver } from './otlp-receiver.js';
import { makeTempDir } from './temp-dir.js';

const BIN = path.resolve('bin/memtrace.cjs');

export interface MemoryCli {
  readonly dataDir: string;
  readonly tempDir: string;
  receiver(): Awaited<ReturnType<typeof startOtlpReceiver>>;
  /** The built CLI as a user runs it, asynchronously: the receiver lives in this process and must answer meanwhile. */
  run(args: string[], env?: Record<string, string>): Promise<{ status: number; stdout: string; stderr: string }>;
}

/** A data dir seeded with the shop's memory and an OTLP receiver, for the suite's lifetime. */
export function useMemoryCliWithReceiver(prefix: string): MemoryCli {
  const temp = makeTempDir(prefix);
  const dataDir = path.join(temp.dir, 'data');
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>> | undefined;
  beforeAll(async () => {
    const store = openStore(path.join(dataDir, 'memtrace.db'));
    seedShop(store);
    store.close();
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    temp.cleanup();
  });
  return {
    dataDir,
    tempDir: temp.dir,
    receiver: () => receiver!,
    run: (args, env = {}) =>
      new Promise((resolve) => {
        execFile(
          process.execPath,
          [BIN, ...args],
          { encoding: 'utf8', timeout: 120_000, env: { PATH: process.env.PATH ?? '', HOME: temp.dir, MEMTRACE_DATA_DIR: dataDir, ...env } },
          (error, stdout, stderr) => resolve({ status: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      }),
  };
}
