import { afterAll, beforeAll } from 'vitest';
import { testRuns, type TestRuns } from './test-runs.ts';
import { startTestDatabase } from './test-database.ts';
import type { TestDatabase } from './test-database.ts';

/** The test file's database and the run services on it; call the getters inside tests. */
export interface RunStoreFixture {
  database: () => TestDatabase;
  store: () => TestRuns;
}

/** Starts a test database with the run services before the file's tests and destroys it after. */
export function useRunStore(): RunStoreFixture {
  let database: TestDatabase | undefined;
  let store: TestRuns | undefined;
  beforeAll(async () => {
    database = await startTestDatabase();
    store = testRuns(database.pool);
  });
  afterAll(() => database?.destroy());
  return { database: () => database!, store: () => store! };
}
