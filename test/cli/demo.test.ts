import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The demo costs about 6 s of CPU, most of it simulating and storing its 51,000-event fleet: 21 to
 * 27 s of wall time at load 18 on this 2-core machine. Its own limit sits under the test's, so a
 * demo that hangs fails with what it printed.
 */
const DEMO_LIMIT_MS = 110_000;

describe('memtrace demo (the README main job)', () => {
  it(
    'runs end to end on embedded defaults and prints memory, context, telemetry and the dashboard URL',
    () => {
      const bin = path.resolve('bin/memtrace.cjs');
      const result = spawnSync(process.execPath, [bin, 'demo', '--no-serve'], {
        encoding: 'utf8',
        timeout: DEMO_LIMIT_MS,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toContain('[6/6] context the next session in this project starts with:');
      expect(result.stdout).toContain('[bugfix] Set the session cookie before redirecting');
      // One observer call for the whole agent turn (8 tool events and its end), not one per event.
      expect(result.stdout).toContain('1 observer call(s) for 8 tool event(s)');
      expect(result.stdout).toMatch(/from message 5,6,7\)/);
      expect(result.stdout).toMatch(/turns 1 over 8 tool event\(s\): parsed 1, dropped 0 \(idle 0, prose 0\)/);
      expect(result.stdout).toMatch(/dashboard.*http:\/\/127\.0\.0\.1:\d+\/dashboard/);
    },
    DEMO_LIMIT_MS + 10_000,
  );
});
