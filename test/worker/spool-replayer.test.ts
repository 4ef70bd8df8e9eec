import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { listSpool, spoolHookEvent } from '../../src/data-dir/index.js';
import { silentLogger } from '../../src/log.js';
import type { HostCall } from '../../src/worker/host-intake.js';
import { createSpoolReplayer } from '../../src/worker/spool-replay.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('the worker’s spool replays', () => {
  let temp: ReturnType<typeof makeTempDir>;
  afterEach(() => temp.cleanup());

  const replayerFor = (dataDir: string, held: () => boolean) => {
    const handled: string[] = [];
    const replayer = createSpoolReplayer({
      dataDir,
      intake: {
        handle: (call: HostCall) => {
          handled.push((JSON.parse('text' in call.body ? call.body.text : '{}') as { tool_use_id: string }).tool_use_id);
          return { status: 200, output: '', kind: null, ignored: 'test' };
        },
      },
      app: new Hono(),
      port: () => 0,
      token: 't',
      log: silentLogger,
      nowMs: () => Date.now(),
      replayed: () => undefined,
      unreadable: () => undefined,
      held,
    });
    return { replayer, handled };
  };
  const spool = (dataDir: string, id: string, at: number) =>
    spoolHookEvent(dataDir, { v: 2, host: 'claude-code', event: 'post-tool-use', via: 'settings', failure: 'refused', at, payload: { tool_use_id: id } });

  it('leaves what is spooled while a newer version takes over for that version, and takes it if the take-over is given up', async () => {
    temp = makeTempDir();
    let held = true;
    const { replayer, handled } = replayerFor(temp.dir, () => held);
    spool(temp.dir, 'a', 1);
    spool(temp.dir, 'b', 2);
    await replayer.replay();
    expect(handled).toEqual([]);
    expect(listSpool(temp.dir)).toHaveLength(2);
    held = false;
    await replayer.replay();
    expect(handled).toEqual(['a', 'b']);
    expect(listSpool(temp.dir)).toEqual([]);
  });

  it('runs one pass at a time: two asked together take each entry once', async () => {
    temp = makeTempDir();
    const { replayer, handled } = replayerFor(temp.dir, () => false);
    for (let i = 0; i < 5; i += 1) spool(temp.dir, `e${i}`, i + 1);
    await Promise.all([replayer.replay(), replayer.replay(), replayer.replay()]);
    expect(handled).toEqual(['e0', 'e1', 'e2', 'e3', 'e4']);
  });
});
