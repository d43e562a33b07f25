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
    globalSetup: ['test/support/function-bundles.global.ts'],
  },
});
