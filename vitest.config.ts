import { defineConfig } from 'vitest/config';

// Integration tests start real servers (PostgreSQL, an OpenID Provider, helm); give them room.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/support/function-bundles.global.ts'],
  },
});
