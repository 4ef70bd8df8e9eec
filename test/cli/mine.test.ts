import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { openStore } from '../../src/store/index.js';
import { captureIO } from '../support/cli-io.js';
import { makeTempDir } from '../support/temp-dir.js';
import { TranscriptBuilder } from '../support/transcripts.js';
import { queuedToolUse } from '../support/queued-events.js';

describe('memtrace mine', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let projects: string;
  let env: Record<string, string>;
  beforeEach(() => {
    temp = makeTempDir();
    projects = path.join(temp.dir, 'projects');
    fs.mkdirSync(path.join(projects, '-work-app'), { recursive: true });
    // Port 9 (discard) on loopback: nothing answers, so no worker is running.
    env = { MEMTRACE_DATA_DIR: path.join(temp.dir, 'data'), MEMTRACE_TELEMETRY: '0', MEMTRACE_PORT: '9' };
  });
  afterEach(() => temp.cleanup());

  function write(options: { compactions?: number } = {}): TranscriptBuilder {
    const t = new TranscriptBuilder();
    t.prompt('go');
    t.call('Read', { file_path: 'a.ts' });
    for (let i = 0; i < (options.compactions ?? 0); i += 1) {
      t.compact();
      t.call('Bash', { command: `step ${i}` });
    }
    t.writeTo(path.join(projects, '-work-app', `${t.sessionId}.jsonl`));
    return t;
  }

  const depth = () => {
    const store = openStore(path.join(env.MEMTRACE_DATA_DIR!, 'memtrace.db'));
    try {
      return store.queue.depth();
    } finally {
      store.close();
    }
  };

  it('mines a folder once, prints a summary and what happens next, and finds nothing new the second time', async () => {
    write({ compactions: 1 });
    write();
    fs.writeFileSync(path.join(projects, '-work-app', 'notes.jsonl'), '{}\n'); // not a session transcript
    const c = captureIO({ env });
    expect(await main(['mine', '--dir', projects], c.io)).toBe(0);
    expect(c.stdout()).toMatch(/transcripts\s+2 \(2 mined, 0 unchanged\)/);
    expect(c.stdout()).toMatch(/events queued\s+3 \(tool calls the hooks missed\)/);
    expect(c.stdout()).toContain("Start the worker ('memtrace worker') to observe them.");
    expect(c.stderr()).toBe(''); // no progress bar when stderr is not a terminal
    expect(depth()).toBe(5); // 3 tool events + 2 session summaries

    const again = captureIO({ env });
    expect(await main(['mine', '--dir', projects, '--json'], again.io)).toBe(0);
    const json = JSON.parse(again.stdout());
    expect(json).toMatchObject({ files: 2, files_unchanged: 2, files_mined: 0, events_queued: 0, bytes_read: 0, next: 'nothing new to observe.' });
    expect(depth()).toBe(5);
  });

  it('mines one named file and draws a progress bar on a terminal', async () => {
    const t = write();
    const c = captureIO({ env });
    (c.io.stderr as { isTTY?: boolean }).isTTY = true;
    const file = path.join(projects, '-work-app', `${t.sessionId}.jsonl`);
    expect(await main(['mine', '--file', file, '--json'], c.io)).toBe(0);
    expect(JSON.parse(c.stdout())).toMatchObject({ files: 1, files_mined: 1, events_queued: 1, segments_mined: 1 });
    const bar = captureIO({ env });
    (bar.io.stderr as { isTTY?: boolean }).isTTY = true;
    write({ compactions: 2 });
    expect(await main(['mine', '--dir', projects], bar.io)).toBe(0);
    expect(bar.stderr()).toMatch(/\r\[#+\] 100% {2}2\/2 files/);
  });

  it('refuses wrong arguments with the usage and exit code 2', async () => {
    for (const args of [
      ['mine', '--dir', projects, '--file', 'x.jsonl'],
      ['mine', '--file', 'notes.txt'],
      ['mine', '--bogus'],
      ['mine', 'extra'],
    ]) {
      const c = captureIO({ env });
      expect(await main(args, c.io)).toBe(2);
      expect(c.stderr()).toContain('usage: memtrace mine');
    }
    const help = captureIO({ env });
    expect(await main(['mine', '--help'], help.io)).toBe(0);
    expect(help.stdout()).toContain('--dir DIR');
  });

  it('says clearly when the folder or file does not exist', async () => {
    const c = captureIO({ env });
    expect(await main(['mine', '--dir', path.join(temp.dir, 'nope')], c.io)).toBe(1);
    expect(c.stderr()).toContain('no such directory');
    const home = captureIO({ env: { ...env, HOME: path.join(temp.dir, 'no-home'), CLAUDE_CONFIG_DIR: path.join(temp.dir, 'no-claude') } });
    expect(await main(['mine'], home.io)).toBe(1);
    expect(home.stderr()).toContain('give --dir');
    const f = captureIO({ env });
    expect(await main(['mine', '--file', path.join(temp.dir, '0b1c2d3e-0000-4000-8000-000000000000.jsonl')], f.io)).toBe(1);
    expect(f.stderr()).toContain('no such file');
  });

  it('leaves messages a running worker has claimed alone', async () => {
    write();
    const store = openStore(path.join(env.MEMTRACE_DATA_DIR!, 'memtrace.db'));
    const { id } = store.queue.enqueue({ sessionId: 's-live', kind: 'observation', toolUseId: 't1', payload: queuedToolUse('s-live'), nowMs: 1 });
    expect(store.queue.claimNext('s-live', 2)?.id).toBe(id); // in flight in the worker
    const c = captureIO({ env });
    expect(await main(['mine', '--dir', projects], c.io)).toBe(0);
    expect(store.queue.confirm(id)).toBe(true); // still claimed: the worker's confirm lands
    store.close();
  });
});
