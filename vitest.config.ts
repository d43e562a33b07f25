import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Tests by level (docs/testing.md): `npx vitest run --project unit` runs the pure units in seconds.
// Integration tests start real servers in the test's process (PostgreSQL, the emulator, an OpenID
// Provider); browser tests drive headless Chromium; system tests start other processes (the fleet,
// kubectl, helm, the bundles). Give the last three room.
const bundles = ['test/support/function-bundles.global.ts'];
// Each level's time limit per test: a browser page or another process waited for on a busy two-core
// machine takes far longer than an assertion on a server in the test's own process.
const level = (name: string, globalSetup: string[], testTimeout: number) => ({
  extends: true as const,
  test: { name, include: [`test/${name}/**/*.test.ts`], globalSetup, testTimeout },
});

export default defineConfig({
  test: {
    // Built and run with podman: npm run test:image (test/image/vitest.config.ts).
    exclude: ['test/image/**', '**/node_modules/**'],
    // A platform (PostgreSQL, the emulator, the bundles) starting on a busy two-core machine took more than 60 s.
    hookTimeout: 180_000,
    pool: 'forks',
    // Most files spend their time waiting on servers, subprocesses and Chromium, not on the CPU:
    // vitest's default (one worker fewer than the CPUs) runs them one at a time on a 2-core CI
    // machine. Two at once there took the suite from 848 s to 520 s, every test passing.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      level('unit', [], 30_000),
      level('integration', bundles, 60_000),
      level('browser', bundles, 120_000),
      level('system', bundles, 120_000),
    ],
  },
});
