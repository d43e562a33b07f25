// Issue 46, item 4: every instance hears each revocation (PostgreSQL LISTEN), and one that lost its
// listening connection says so once it listens again, since the revocations announced meanwhile were
// not heard: the instance then drops every Project token it had verified (docs/tokens.md, bounds).
// A real PostgreSQL; the connection is ended by the server (pg_terminate_backend), as a restart or a
// network cut would end it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TOKEN_REVOKED_CHANNEL } from '../../../shared/domain/tokens/project-token-store.ts';
import { TokenRevocationListener } from '../../../shared/domain/tokens/token-revocation-listener.ts';
import { silentLogger } from '../../support/function-servers.ts';
import { startTestDatabase, type TestDatabase } from '../../support/test-database.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await startTestDatabase();
}, 60_000);

afterAll(async () => {
  await database?.destroy();
});

const announce = (user: string) => database.pool.query('SELECT pg_notify($1, $2)', [TOKEN_REVOKED_CHANNEL, user]);

describe('Issue 46, item 4: the revocation listener', () => {
  it('hears each revocation, and after a lost connection listens again and says it may have missed some', async () => {
    const heard: string[] = [];
    let resumed = 0;
    const listener = new TokenRevocationListener(
      async () => ({ connectionString: database.connectionString }),
      (user) => heard.push(user),
      silentLogger,
      () => resumed++,
    );
    try {
      await listener.listening();
      await announce('system:serviceaccount:team:token-first');
      await vi.waitFor(() => expect(heard).toEqual(['system:serviceaccount:team:token-first']));
      expect(resumed).toBe(0);

      const ended = await database.pool.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1`,
        [`LISTEN ${TOKEN_REVOKED_CHANNEL}`],
      );
      expect(ended.rowCount).toBe(1);
      await vi.waitFor(() => expect(resumed).toBe(1), { timeout: 20_000, interval: 100 });

      await announce('system:serviceaccount:team:token-second');
      await vi.waitFor(() => expect(heard).toContain('system:serviceaccount:team:token-second'));
    } finally {
      await listener.close();
    }
  });
});
