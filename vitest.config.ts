import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real agent CLIs are an opt-in suite with its own install: npm run test:clis.
    exclude: [...configDefaults.exclude, 'test/clis/**', 'test/docker/**'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/state-per-test.ts'],
    // Tests spawn real agents and wait on real timeouts; two cores are shared with them.
    testTimeout: 60_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
