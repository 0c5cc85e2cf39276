import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The container suite (test/docker/ci.sh): a real docker build and real containers, as root with
// a running dockerd. Not part of `npm test`; one file, its tests one after another.
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/docker/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
