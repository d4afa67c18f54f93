import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'e2e/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration tests start real sshd/dockerd/Core processes; keep files in separate forks.
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
