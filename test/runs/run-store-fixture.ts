import { afterAll, beforeAll } from 'vitest';
import { RunStore } from '../../shared/runs/run-store.ts';
import { startTestDatabase } from './test-database.ts';
import type { TestDatabase } from './test-database.ts';

/** The test file's database and the RunStore on it; call the getters inside tests. */
export interface RunStoreFixture {
  database: () => TestDatabase;
  store: () => RunStore;
}

/** Starts a test database with a RunStore before the file's tests and destroys it after. */
export function useRunStore(): RunStoreFixture {
  let database: TestDatabase | undefined;
  let store: RunStore | undefined;
  beforeAll(async () => {
    database = await startTestDatabase();
    store = new RunStore(database.pool);
  });
  afterAll(() => database?.destroy());
  return { database: () => database!, store: () => store! };
}
