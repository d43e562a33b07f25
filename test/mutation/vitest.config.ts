import { defineConfig } from 'vitest/config';

// The test files one mutation scope runs (set by run.ts): only the fast files that exercise the
// scope, so each mutant costs seconds, not the whole suite.
const files = (process.env.MUTATION_TEST_FILES ?? '').split(',').filter(Boolean);

export default defineConfig({
  test: {
    include: files.length > 0 ? files : ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
