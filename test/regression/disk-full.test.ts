import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObserverProvider } from '../../src/providers/types.js';
import { observationXml } from '../support/replies.js';
import { waitFor } from '../support/wait-for.js';
import { startHarness, toolEvent, type Harness } from '../support/worker-harness.js';

/**
 * Bug (issue 8, item 6): a write that failed for lack of space gave a bare 500 and left a
 * message claimed with nothing in flight. Reproduced on a real, small tmpfs (needs root to
 * mount; CI runs as root).
 */
const mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'memtrace-full-'));
const mounted = (() => {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m,mode=0700', 'tmpfs', mountPoint], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!mounted)('a full disk (real tmpfs)', () => {
  let h: Harness | undefined;
  afterAll(async () => {
    await h?.stop().catch(() => undefined);
    execFileSync('umount', ['-l', mountPoint]);
    fs.rmSync(mountPoint, { recursive: true, force: true });
  });
  beforeAll(() => {
    if (!mounted) console.warn('skipped: mounting a tmpfs needs root');
  });

  it('answers 507, says so in /health, strands no message, and resumes by itself once space frees', async () => {
    // Observer calls wait for the test, so a turn can be made to commit while the disk is full.
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const bigReply = observationXml({ type: 'change', title: 'stored after the disk freed', narrative: 'n'.repeat(300 * 1024) });
    const provider: ObserverProvider = {
      name: 'replay',
      model: 'replay',
      async complete() {
        await gate;
        return { text: bigReply, usage: null, costUsd: null, model: 'replay' };
      },
    };
    h = await startHarness(provider, {
      dataDir: path.join(mountPoint, 'data'),
      loop: { concurrency: 1, backoff: { baseMs: 50, capMs: 200 }, authProbe: { baseMs: 50, capMs: 200 }, storeProbeMs: 100 },
    });
    let accepted = 0;
    for (let i = 1; i <= 3; i += 1) accepted += (await h.post('/api/sessions/observations', toolEvent('full', i))).status === 202 ? 1 : 0;
    await waitFor(async () => JSON.parse((await h!.get('/health')).text).in_flight === 1);

    const filler = path.join(mountPoint, 'filler');
    const free = fs.statfsSync(mountPoint);
    fs.writeFileSync(filler, Buffer.alloc(Math.max(0, free.bavail * free.bsize - 64 * 1024)));
    let full: { status: number; json: any } | null = null;
    for (let i = 10; i <= 100 && !full; i += 1) {
      const res = await h.post('/api/sessions/observations', toolEvent('full', i, { tool_response: 'y'.repeat(64 * 1024) }));
      if (res.status === 202) accepted += 1;
      else full = res;
    }
    expect(full?.status).toBe(507);
    expect(full?.json.error).toMatchObject({ code: 'insufficient_storage', field: null });

    // The claimed turn now tries to commit a large observation onto the full disk.
    open();
    await waitFor(async () => JSON.parse((await h!.get('/health')).text).in_flight === 0);
    const health = JSON.parse((await h.get('/health')).text);
    expect(health.status).toBe('degraded');
    expect(health.degraded.map((d: { reason: string }) => d.reason)).toContain('disk_full');
    const claimed = (h.worker.store.db.prepare("SELECT count(*) AS n FROM queue WHERE status = 'claimed'").get() as { n: number }).n;
    const toRelease = health.degraded.find((d: { reason: string }) => d.reason === 'disk_full').messages_to_release as number;
    // Every message still marked claimed is one the worker is actively releasing, none forgotten.
    expect(claimed).toBe(toRelease);

    fs.rmSync(filler);
    await waitFor(async () => JSON.parse((await h!.get('/health')).text).status === 'ok', 10_000);
    expect((await h.post('/api/sessions/observations', toolEvent('full', 1_000))).status).toBe(202);
    accepted += 1;
    await h.drained(20_000);
    // Every accepted event was observed once: batches of them, each observation naming its events.
    const observed = new Set(
      (h.worker.store.db.prepare('SELECT source_message_ids AS ids FROM observations').all() as Array<{ ids: string }>).flatMap(
        (r) => JSON.parse(r.ids) as number[],
      ),
    );
    expect(observed.size).toBe(accepted);
    expect(h.worker.store.db.prepare('SELECT count(*) AS n FROM queue').get()).toEqual({ n: 0 });
  });
});
