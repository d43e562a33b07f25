import type pg from 'pg';
import type { Logger } from '../../base/logging/logger.ts';
import { TOKEN_REVOKED_CHANNEL } from './project-token-store.ts';

const RECONNECT_DELAY_MS = 1_000;

/**
 * Hears every Project token revocation (PostgreSQL LISTEN on TOKEN_REVOKED_CHANNEL, announced by the
 * revoking instance when it commits) and hands the revoked ServiceAccount's user name to `onRevoked`,
 * which drops it from this instance's caches. It holds one connection of the pool, taken when the
 * instance first sees a Project token (`listening`), so instances that never do hold none. After a
 * lost connection it listens again; meanwhile the TokenReview cache's own lifetime (10 s) bounds how
 * long a revoked token is still accepted (docs/tokens.md).
 */
export class TokenRevocationListener {
  readonly #pool: () => Promise<pg.Pool>;
  readonly #onRevoked: (user: string) => void;
  readonly #logger: Logger;
  #client: pg.PoolClient | undefined;
  #connecting: Promise<void> | undefined;
  #reconnect: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(pool: () => Promise<pg.Pool>, onRevoked: (user: string) => void, logger: Logger) {
    this.#pool = pool;
    this.#onRevoked = onRevoked;
    this.#logger = logger;
  }

  /** Resolves once this instance listens (at once when it does already); never throws: a failure is logged and retried. */
  listening(): Promise<void> {
    if (this.#closed || this.#client) return Promise.resolve();
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#reconnect);
    await this.#connecting;
    const client = this.#client;
    this.#client = undefined;
    client?.release(true);
  }

  async #connect(): Promise<void> {
    try {
      const client = await (await this.#pool()).connect();
      client.on('notification', (message) => {
        if (message.channel === TOKEN_REVOKED_CHANNEL && message.payload) this.#onRevoked(message.payload);
      });
      client.on('error', (error) => this.#lost(client, error));
      await client.query(`LISTEN ${TOKEN_REVOKED_CHANNEL}`);
      if (this.#closed) return void client.release(true);
      this.#client = client;
    } catch (error) {
      this.#logger.warn(
        'cannot listen for Project token revocations; retrying (the TokenReview cache bounds them meanwhile)',
        {
          detail: error instanceof Error ? error.message : String(error),
        },
      );
      this.#scheduleReconnect();
    }
  }

  #lost(client: pg.PoolClient, error: Error): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    client.release(error);
    this.#logger.warn('lost the Project token revocation listener; listening again', { detail: error.message });
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#reconnect) return;
    this.#reconnect = setTimeout(() => {
      this.#reconnect = undefined;
      void this.listening();
    }, RECONNECT_DELAY_MS);
    this.#reconnect.unref();
  }
}
