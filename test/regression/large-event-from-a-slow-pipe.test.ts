/**
 * Issue 17, item 1: `memtrace hook` read its stdin with one synchronous read; when the host wrote
 * a large event into the pipe progressively, the rest was read by a fallback that started over,
 * the JSON was invalid, and the event was dropped (0 of 4 events of 0.3–8 MB stored). Now every
 * byte is read, from a pipe written slowly, a socket or a file, through the shell forwarder and
 * the Node hook alike; an event that arrives cut short is kept aside and counted, not dropped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReplayProvider } from '../../src/providers/index.js';
import { hookCommand, runHookProcess, type HookPath } from '../support/hook-process.js';
import { buildNativeForwarderInto } from '../support/native-forwarder.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startHarness, type Harness } from '../support/worker-harness.js';

const fixture = JSON.parse(fs.readFileSync('test/fixtures/claude-code/hooks/post-tool-use-bash.json', 'utf8')) as Record<string, unknown>;
const refusing = () => createReplayProvider({ lines: ['{"error":{"status":401,"type":"authentication_error"}}'] });
const MB = 1024 * 1024;

function bigEvent(toolUseId: string, bytes: number): Buffer {
  return Buffer.from(
    JSON.stringify({ ...fixture, tool_use_id: toolUseId, tool_response: { stdout: `BEGIN${'x'.repeat(bytes)}END`, stderr: '', interrupted: false } }),
  );
}

describe('a large tool event written slowly into the hook', () => {
  let h: Harness;
  let temp: ReturnType<typeof makeTempDir>;
  let env: Record<string, string>;
  beforeAll(async () => {
    temp = makeTempDir();
    h = await startHarness(refusing());
    buildNativeForwarderInto(h.dataDir);
    // Behaviour, not speed: a loaded machine may take seconds for 8 MB.
    env = { MEMTRACE_DATA_DIR: h.dataDir, HOME: temp.dir, MEMTRACE_HOOK_TIMEOUT_MS: '120000', MEMTRACE_HOOK_TIMEOUT_S: '120' };
  });
  afterAll(async () => {
    await h.stop();
    temp.cleanup();
  });
  const stored = (toolUseId: string) => {
    const row = h.worker.store.db.prepare('SELECT payload FROM queue WHERE tool_use_id = ?').get(toolUseId) as { payload: string } | undefined;
    return row ? (JSON.parse(row.payload) as { tool_response: { stdout: string } }) : null;
  };

  it.each<[HookPath, number]>([
    ['forwarder', 0.3],
    ['forwarder', 1],
    ['forwarder', 4],
    ['forwarder', 8],
    ['forwarder-curl', 1],
    ['forwarder-curl', 8],
    ['forwarder-native', 1],
    ['forwarder-native', 8],
    ['installed', 8],
    ['node', 0.3],
    ['node', 1],
    ['node', 4],
    ['node', 8],
  ])('stores a %s hook event of %s MB written in 64 KB chunks, shortened with head and tail kept', async (via, mb) => {
    const id = `toolu_${via}_${String(mb).replace('.', '_')}`;
    const run = await runHookProcess(hookCommand(via, 'claude-code', 'post-tool-use', h.dataDir), bigEvent(id, Math.round(mb * MB)), { env });
    expect(run.code).toBe(0);
    const event = stored(id);
    expect(event, run.stderr).not.toBeNull();
    expect(event!.tool_response.stdout.startsWith('BEGINxxx')).toBe(true);
    expect(event!.tool_response.stdout.endsWith('xxxEND')).toBe(true);
    if (mb > 1) expect(event!.tool_response.stdout).toMatch(/elided \d+ characters/);
  });

  it.each<['socket' | 'file', HookPath]>([
    ['socket', 'node'],
    ['file', 'node'],
    ['socket', 'forwarder'],
    ['file', 'forwarder'],
    ['socket', 'forwarder-curl'],
    ['socket', 'forwarder-native'],
    ['socket', 'installed'],
  ])('reads all of a 2 MB event from a %s stdin (%s)', async (stdin, via) => {
    const id = `toolu_${stdin}_${via}`;
    const run = await runHookProcess(hookCommand(via, 'claude-code', 'post-tool-use', h.dataDir), bigEvent(id, 2 * MB), { env, stdin });
    expect(run.code).toBe(0);
    expect(stored(id), run.stderr).not.toBeNull();
  });

  it.each<HookPath>(['node', 'forwarder', 'forwarder-curl', 'forwarder-native'])(
    'keeps an event cut short by a host that died mid-write aside and counts it (%s)',
    async (via) => {
      const before = JSON.parse((await h.get('/health')).text).hooks.unreadable as number;
      const input = bigEvent(`toolu_cut_${via}`, MB);
      const run = await runHookProcess(hookCommand(via, 'claude-code', 'post-tool-use', h.dataDir), input, {
        env,
        closeAfterBytes: Math.floor(input.length / 2),
      });
      expect(run.code).toBe(0);
      expect(stored(`toolu_cut_${via}`)).toBeNull();
      expect(JSON.parse((await h.get('/health')).text).hooks.unreadable).toBe(before + 1);
      const kept = fs.readdirSync(path.join(h.dataDir, 'spool', 'unreadable'));
      expect(kept.length).toBeGreaterThan(0);
    },
  );
});
