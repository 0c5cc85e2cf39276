import { configDefaults, defineConfig } from 'vitest/config';

// Three projects, by what their tests cost (docs/testing.md): `npm run test:fast` is unit alone.
// In-process: the loop, the commands and the guards against src/, through the injected seams
// (spawn, clock, files); no test here waits on the wall clock.
const UNIT = ['test/unit/**/*.test.ts', 'test/hardening/properties.test.ts', 'test/hardening/safe-fs.test.ts'];
// Real processes for a long time: crash torture, bubblewrap as root and as nobody, HTTP delivery
// with its retries, usage limits shared through real resets, locks outliving their holders,
// timeouts and live views that wait on real agents.
const SLOW = [
  'test/hardening/crash.test.ts',
  'test/hardening/sandbox.test.ts',
  'test/hardening/fence-owns.test.ts',
  'test/hardening/shared-limits.test.ts',
  'test/e2e/fallback.test.ts',
  'test/hardening/lock-reuse.test.ts',
  'test/hardening/lock.test.ts',
  'test/hardening/timeouts.test.ts',
  'test/e2e/notify-delivery.test.ts',
  'test/e2e/notify.test.ts',
  'test/operator/live.test.ts',
];
// The real agent CLIs (npm run test:clis) and the container image (test/docker/ci.sh) are
// suites of their own, with their own installs.
const ELSEWHERE = ['test/clis/**', 'test/docker/**'];

const shared = {
  setupFiles: 'test/state-per-test.ts',
  // Tests spawn real agents and wait on real timeouts; two cores are shared with them.
  testTimeout: 60_000,
  hookTimeout: 30_000,
  pool: 'forks' as const,
};

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    maxWorkers: 2,
    projects: [
      // Without isolation: its files share one module graph, which halves its time.
      { test: { ...shared, name: 'unit', include: UNIT, isolate: false } },
      // The built CLI as users run it, in real processes, each test in seconds.
      {
        test: {
          ...shared,
          name: 'cli',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ELSEWHERE, ...UNIT, ...SLOW],
        },
      },
      { test: { ...shared, name: 'slow', include: SLOW } },
    ],
  },
});
