import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Tests by level (docs/testing.md): `npx vitest run --project unit` runs the pure units in seconds.
// Integration tests start real servers in the test's process (PostgreSQL, the emulator, an OpenID
// Provider); browser tests drive headless Chromium; system tests start other processes (the fleet,
// kubectl, helm, the bundles). Give the last three room.
const bundles = ['test/support/function-bundles.global.ts'];
const level = (name: string, globalSetup: string[]) => ({
  extends: true as const,
  test: { name, include: [`test/${name}/**/*.test.ts`], globalSetup },
});

export default defineConfig({
  test: {
    // Built and run with podman: npm run test:image (test/image/vitest.config.ts).
    exclude: ['test/image/**', '**/node_modules/**'],
    testTimeout: 30_000,
    // A platform (PostgreSQL, the emulator, the bundles) starting on a busy two-core machine took more than 60 s.
    hookTimeout: 180_000,
    pool: 'forks',
    // Most files spend their time waiting on servers, subprocesses and Chromium, not on the CPU:
    // vitest's default (one worker fewer than the CPUs) runs them one at a time on a 2-core CI
    // machine. Two at once there took the suite from 848 s to 520 s, every test passing.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [level('unit', []), level('integration', bundles), level('browser', bundles), level('system', bundles)],
  },
});
