import { defineConfig } from 'vitest/config';

/** The runs of the real Claude Code CLI: slow, and one of them compares timings, so they run alone. */
const CLAUDE_CODE_E2E = 'test/e2e/claude-code-*.test.ts';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // SQLite files and child processes: keep parallelism modest on 2 cores.
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [CLAUDE_CODE_E2E] } },
      { extends: true, test: { name: 'claude-code', include: [CLAUDE_CODE_E2E], maxWorkers: 1, fileParallelism: false } },
    ],
  },
});
