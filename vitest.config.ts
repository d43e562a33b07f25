import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Integration tests start real servers (PostgreSQL, an OpenID Provider, helm); give them room.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Built and run with podman: npm run test:image (test/image/vitest.config.ts).
    exclude: ['test/image/**', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files spend their time waiting on servers, subprocesses and Chromium, not on the CPU:
    // vitest's default (one worker fewer than the CPUs) runs them one at a time on a 2-core CI
    // machine. Two at once there took the suite from 848 s to 520 s, every test passing.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    globalSetup: ['test/support/function-bundles.global.ts'],
  },
});
