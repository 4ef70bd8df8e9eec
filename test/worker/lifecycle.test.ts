import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claimStartAttempt, readStartState, readWorkerPackage, recordStartFailure, writeWorkerPackage } from '../../src/data-dir/index.js';
import { nativeForwarderName, NATIVE_FORWARDER_SOURCE } from '../../src/install/index.js';
import { silentLogger } from '../../src/log.js';
import { createLifecycle } from '../../src/worker/lifecycle.js';
import { installCopy } from '../support/package-copy.js';
import { makeTempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('a worker’s life cycle in the data dir', () => {
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(() => temp?.cleanup());
  const lifecycleOf = (dataDir: string, bin: string | null, version: string) =>
    createLifecycle(
      { dataDir, version, bin, argv: ['worker'], env: { PATH: process.env.PATH ?? '' } },
      { log: silentLogger, clock: { now: () => Date.now() }, handOver: () => undefined },
    );

  it('remembers the newest install that ran here, and never an older one over a newer one still installed', () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    fs.mkdirSync(dataDir);
    const older = installCopy(path.join(temp.dir, 'older'), '0.2.0');
    const newer = installCopy(path.join(temp.dir, 'newer'), '0.3.0');
    const first = lifecycleOf(dataDir, newer, '0.3.0');
    first.started();
    first.stop();
    expect(readWorkerPackage(dataDir)).toEqual({ version: '0.3.0', bin: newer });
    const second = lifecycleOf(dataDir, older, '0.2.0');
    second.started();
    second.stop();
    expect(readWorkerPackage(dataDir)).toEqual({ version: '0.3.0', bin: newer });
    // Once the newer one is gone, the one that runs is what a later start runs.
    fs.rmSync(path.join(temp.dir, 'newer'), { recursive: true });
    const third = lifecycleOf(dataDir, older, '0.2.0');
    third.started();
    third.stop();
    expect(readWorkerPackage(dataDir)).toEqual({ version: '0.2.0', bin: older });
  });

  it('builds its own native forwarder after an upgrade where install had built the old one', async () => {
    temp = makeTempDir();
    const dataDir = path.join(temp.dir, 'data');
    fs.mkdirSync(path.join(dataDir, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'bin', 'hook-0123456789abcdef'), '', { mode: 0o700 });
    writeWorkerPackage(dataDir, { version: '0.1.0', bin: '/gone/bin' });
    const own = path.join(dataDir, 'bin', nativeForwarderName(fs.readFileSync(path.join(ROOT, NATIVE_FORWARDER_SOURCE))));
    const lifecycle = lifecycleOf(dataDir, path.join(ROOT, 'bin'), '0.2.0');
    lifecycle.started();
    await waitFor(() => fs.existsSync(own), 30_000);
    lifecycle.stop();
    expect(fs.statSync(own).mode & 0o777).toBe(0o700);
  });

  it('lets the next start go at once after a clean stop, but not after a failure it still has to say', () => {
    temp = makeTempDir();
    claimStartAttempt(temp.dir, Date.now());
    const clean = lifecycleOf(temp.dir, null, '0.2.0');
    clean.started();
    clean.stop();
    expect(readStartState(temp.dir)).toBeNull();
    claimStartAttempt(temp.dir, Date.now());
    const failing = lifecycleOf(temp.dir, null, '0.2.0');
    failing.started();
    recordStartFailure(temp.dir, { reason: 'take_over', detail: 'x', fix: 'y', version: '0.3.0', at: new Date().toISOString() });
    failing.stop();
    expect(readStartState(temp.dir)?.last_error).toMatchObject({ reason: 'take_over' });
  });

  it('says nothing in /health or SessionStart while no newer install has failed to take over', () => {
    temp = makeTempDir();
    const lifecycle = lifecycleOf(temp.dir, null, '0.2.0');
    expect(lifecycle.health()).toEqual({ installedVersion: null, handingOverTo: null, takeOverFailure: null });
    expect(lifecycle.notice()).toBeNull();
  });
});
