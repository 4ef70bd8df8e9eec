import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // SQLite files and child processes: keep parallelism modest on 2 cores.
    pool: 'forks',
    maxWorkers: 2,
  },
});
