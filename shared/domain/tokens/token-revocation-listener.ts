import type pg from 'pg';
import type { Logger } from '../../base/logging/logger.ts';
import { TOKEN_REVOKED_CHANNEL } from './project-token-store.ts';

const RECONNECT_DELAY_MS = 1_000;

/**
 * Hears every Project token revocation (PostgreSQL LISTEN on TOKEN_REVOKED_CHANNEL, announced by the
 * revoking instance when it commits) and hands the revoked ServiceAccount's user name to `onRevoked`,
 * which drops it from this instance's caches. It holds one connection of its own (a LISTEN cannot share
 * the pool's), opened when the instance first sees a Project token (`listening`), so instances that
 * never do hold none. After a lost connection it listens again (a second later, then every second) and
 * calls `onResumed`: the revocations announced meanwhile were not heard, so the instance drops every
 * Project token it had verified (docs/tokens.md, bounds).
 */
export class TokenRevocationListener {
  readonly #connection: () => Promise<pg.ClientConfig>;
  readonly #onRevoked: (user: string) => void;
  readonly #onResumed: () => void;
  readonly #logger: Logger;
  /** Not listening for a while (lost, or not opened when asked): what was announced meanwhile went unheard. */
  #missedSome = false;
  #client: pg.Client | undefined;
  #connecting: Promise<void> | undefined;
  #reconnect: NodeJS.Timeout | undefined;
  #closed = false;

  /**
   * `connection`: the database's connection settings (opening it when needed), for the listener's own
   * connection; `onRevoked` hears each revoked user; `onResumed`, each time it listens again after a loss.
   */
  constructor(
    connection: () => Promise<pg.ClientConfig>,
    onRevoked: (user: string) => void,
    logger: Logger,
    onResumed: () => void,
  ) {
    this.#connection = connection;
    this.#onRevoked = onRevoked;
    this.#logger = logger;
    this.#onResumed = onResumed;
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
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    let client: pg.Client | undefined;
    try {
      // Loaded here: a function that never sees a Project token never loads the PostgreSQL driver for it.
      const { default: postgres } = await import('pg');
      client = new postgres.Client(await this.#connection());
      client.on('notification', (message) => {
        if (message.channel === TOKEN_REVOKED_CHANNEL && message.payload) this.#onRevoked(message.payload);
      });
      const opened = client;
      client.on('error', (error) => this.#lost(opened, error));
      client.on('end', () => this.#lost(opened, new Error('the connection ended')));
      await client.connect();
      await client.query(`LISTEN ${TOKEN_REVOKED_CHANNEL}`);
      if (this.#closed) return void (await client.end().catch(() => undefined));
      this.#client = client;
      if (this.#missedSome) {
        this.#missedSome = false;
        this.#onResumed();
      }
    } catch (error) {
      // Tokens verified meanwhile are cached unheard of (`listening` never fails a request).
      this.#missedSome = true;
      client?.removeAllListeners('end');
      await client?.end().catch(() => undefined);
      this.#logger.warn(
        'cannot listen for Project token revocations; retrying (the TokenReview cache bounds them meanwhile)',
        {
          detail: error instanceof Error ? error.message : String(error),
        },
      );
      this.#scheduleReconnect();
    }
  }

  #lost(client: pg.Client, error: Error): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#missedSome = true;
    client.end().catch(() => undefined);
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
