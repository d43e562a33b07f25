import { defineConfig } from 'vitest/config';

// The container image test (npm run test:image): built and run with podman, so it is kept out of
// the main suite. One file, sequential: cold starts are measured one container at a time.
export default defineConfig({
  test: {
    include: ['test/image/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
