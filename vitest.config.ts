import { defineConfig } from 'vitest/config';

/** Runs of the real Claude Code, Gemini CLI and Codex CLIs and of the installed package: slow and CPU-hungry, so they run one at a time, after the unit project. */
const SLOW_E2E = [
  'test/e2e/claude-code-*.test.ts',
  'test/e2e/host-*.test.ts',
  'test/e2e/package-install.test.ts',
  'test/e2e/package-manager-install.test.ts',
  'test/e2e/package-upgrade*.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // SQLite files and child processes: keep parallelism modest on 2 cores.
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: SLOW_E2E } },
      { extends: true, test: { name: 'slow-e2e', include: SLOW_E2E, maxWorkers: 1, fileParallelism: false } },
    ],
  },
});
