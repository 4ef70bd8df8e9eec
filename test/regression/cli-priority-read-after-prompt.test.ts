import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/providers/cli/cli-process.js';

/**
 * The flake: the host CLI's priority is lowered right after the spawn; a CLI that looked at its
 * priority before reading its prompt could, on a loaded machine, still see the worker's. Once the
 * prompt is there (stdin is written after the priority is set), it always sees the lowered one.
 */
describe('a host CLI run by memtrace, on a loaded machine', () => {
  it('runs at the lowered priority by the time it reads its prompt, every time', async () => {
    for (let i = 0; i < 20; i += 1) {
      const outcome = await runCli({
        file: '/bin/sh',
        args: ['-c', "cat > /dev/null; cut -d' ' -f19 /proc/$$/stat"],
        cwd: process.cwd(),
        env: { PATH: process.env.PATH ?? '' },
        stdin: 'the turn',
        timeoutMs: 10_000,
        niceness: 10,
      });
      expect(outcome.kind === 'exited' && Number(outcome.stdout.trim())).toBeGreaterThanOrEqual(10);
    }
  });
});
