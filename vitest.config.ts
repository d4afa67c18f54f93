import { defineConfig } from 'vitest/config';
import { programTextPlugin } from './scripts/programText.mjs';

export default defineConfig({
  // The shell and awk programs the modules import load as their text (scripts/programText.mjs).
  plugins: [programTextPlugin],
  test: {
    include: ['src/**/*.test.ts', 'e2e/**/*.test.ts', 'examples/**/*.test.ts', 'scripts/**/*.test.ts'],
    // Generous: CI shares 2 cores, and a CLI-driven test starts many node processes; a hang still ends.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Integration tests start real sshd/dockerd/Core processes; keep files in separate forks.
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    // A HOME of the test process's own: no test reads the machine's rc files or leftovers in its home.
    setupFiles: ['scripts/testHome.ts'],
  },
});
