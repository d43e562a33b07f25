import {
  createLocalJWKSet,
  errors as joseErrors,
  type CryptoKey,
  type FlattenedJWSInput,
  type JSONWebKeySet,
  type JWSHeaderParameters,
  type RemoteJWKSet,
} from 'jose';
import type { ApiError } from '../base/http/api-error.ts';
import type { Logger } from '../base/logging/logger.ts';

export interface HeldKeySetOptions {
  /** After a failed fetch, how long to answer from the keys already held before trying again. */
  retryAfterFailureMs: number;
  /** Who publishes the keys, for the log: "identity provider", "cluster ServiceAccount". */
  publisher: string;
  /** The error for a token whose key cannot be had (no keys held, or not among them) while the source is unreachable. */
  unavailable: () => ApiError;
  logger: Logger;
}

/**
 * A jose remote key set (refetched when stale, or on an unknown `kid` at most once per cooldown)
 * that keeps verifying with the keys it already holds while its source is unreachable, and asks
 * the source again only after `retryAfterFailureMs`, so an outage costs one failed fetch per
 * interval, not one per token. A key the source's current set lacks is the token's fault (jose's
 * JWKSNoMatchingKey, a 401); a key that cannot be looked up because the source is down is a 503.
 */
export class HeldKeySet {
  readonly #remote: RemoteJWKSet;
  readonly #options: HeldKeySetOptions;
  #refreshFailedAt = Number.NEGATIVE_INFINITY;
  #heldKeys: { source: JSONWebKeySet; getKey: ReturnType<typeof createLocalJWKSet> } | undefined;

  constructor(remote: RemoteJWKSet, options: HeldKeySetOptions) {
    this.#remote = remote;
    this.#options = options;
  }

  /** jose's key lookup for `jwtVerify`; throws ApiError 503 when no usable key can be had. */
  readonly getKey = async (header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> => {
    if (Date.now() - this.#refreshFailedAt < this.#options.retryAfterFailureMs)
      return this.#fromHeldKeys(header, token);
    try {
      return await this.#remote(header, token);
    } catch (error) {
      if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JOSENotSupported) throw error;
      this.#refreshFailedAt = Date.now();
      this.#options.logger.warn(
        `${this.#options.publisher} key set unreachable; verifying with the keys already held`,
        { detail: (error as Error).message },
      );
      return this.#fromHeldKeys(header, token);
    }
  };

  /** Fetches the keys now (start-up warm-up); throws when the source cannot be reached. */
  async load(): Promise<void> {
    if (this.#remote.jwks() === undefined) await this.#remote.reload();
  }

  async #fromHeldKeys(header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> {
    const source = this.#remote.jwks();
    if (source === undefined) throw this.#options.unavailable();
    if (this.#heldKeys === undefined || JSON.stringify(this.#heldKeys.source) !== JSON.stringify(source)) {
      this.#heldKeys = { source, getKey: createLocalJWKSet(source) };
    }
    try {
      return await this.#heldKeys.getKey(header, token);
    } catch (error) {
      // The token may be signed with a key published since; it cannot be checked until the source is back.
      if (error instanceof joseErrors.JWKSNoMatchingKey) throw this.#options.unavailable();
      throw error;
    }
  }
}
