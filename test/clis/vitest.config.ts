import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The opt-in suite of the real agent CLIs (npm run test:clis): one file per CLI, run in parallel.
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/clis/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/state-per-test.ts'],
    // Each test waits on real CLIs and, in the hang test, on real timeouts.
    testTimeout: 150_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 3,
  },
});
