import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIO } from '../support/cli-io.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('memtrace telemetry', () => {
  let temp: ReturnType<typeof makeTempDir>;
  beforeEach(() => {
    temp = makeTempDir();
  });
  afterEach(() => temp.cleanup());
  const run = async (args: string[], env: Record<string, string> = {}) => {
    const c = captureIO({ env: { MEMTRACE_DATA_DIR: temp.dir, ...env } });
    const code = await main(['telemetry', ...args], c.io);
    return { code, out: c.stdout(), err: c.stderr() };
  };

  it('status --json names the state, the deciding layer and where things are', async () => {
    const r = await run(['status', '--json']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.out);
    expect(s).toMatchObject({
      enabled: true,
      decided_by: 'default',
      sink: 'local only',
      outbox_depth: 0,
      pending_rollups: 0,
      error_capture: true,
      debug: false,
    });
    expect(s.config_path).toBe(path.join(temp.dir, 'telemetry.json'));
    expect(s.install_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('disable keeps the install id and the choice; DO_NOT_TRACK still wins over enable', async () => {
    const before = JSON.parse((await run(['status', '--json'])).out).install_id;
    expect((await run(['disable'])).code).toBe(0);
    const after = JSON.parse((await run(['status', '--json'])).out);
    expect(after).toMatchObject({ enabled: false, decided_by: 'config', install_id: before });
    const enabled = await run(['enable'], { DO_NOT_TRACK: '1' });
    expect(enabled.out).toContain('overrides it');
    expect(JSON.parse(fs.readFileSync(path.join(temp.dir, 'telemetry.json'), 'utf8'))).toMatchObject({ install_id: before, enabled: true });
  });

  it('says telemetry is off, and why, when the config is corrupt', async () => {
    fs.writeFileSync(path.join(temp.dir, 'telemetry.json'), '{"install_id": 5}');
    const s = JSON.parse((await run(['status', '--json'])).out);
    expect(s).toMatchObject({ enabled: false, decided_by: 'config_error' });
    expect(s.reason).toContain('install_id');
  });

  it('preview prints nothing waiting on a fresh install, and flush says it is local only', async () => {
    expect((await run(['preview'])).out).toContain('nothing waiting');
    expect((await run(['flush'])).out).toContain('local only');
  });

  it('rejects unknown subcommands and flags with exit 2', async () => {
    expect((await run(['bogus'])).code).toBe(2);
    expect((await run(['status', '--yaml'])).code).toBe(2);
  });
});
