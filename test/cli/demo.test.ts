import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

describe('memtrace demo (the README main job)', () => {
  it('runs end to end on embedded defaults and prints memory, context, telemetry and the dashboard URL', () => {
    const bin = path.resolve('bin/memtrace.cjs');
    const result = spawnSync(process.execPath, [bin, 'demo', '--no-serve'], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('[6/6] context the next session in this project starts with:');
    expect(result.stdout).toContain('[bugfix] Set the session cookie before redirecting');
    expect(result.stdout).toMatch(/turns 9: parsed 7, dropped 2 \(idle 1, prose 1\)/);
    expect(result.stdout).toMatch(/dashboard.*http:\/\/127\.0\.0\.1:\d+\/dashboard/);
  });
});
