import { createLocalJWKSet, createRemoteJWKSet, errors as joseErrors, type FlattenedJWSInput, type JWSHeaderParameters, type JSONWebKeySet } from 'jose';
import type { CryptoKey } from 'jose';
import type { OidcSettings } from '../config/identity-config.ts';
import { serviceUnavailable, type ApiError } from '../http/api-error.ts';
import type { Logger } from '../logging/logger.ts';

type RemoteKeySet = ReturnType<typeof createRemoteJWKSet>;

export interface OidcKeySetOptions {
  /** After a failed fetch, how long to answer from the keys already held before trying again. */
  retryAfterFailureMs?: number;
  /** How long fetched keys count as fresh (jose's cacheMaxAge). */
  keysMaxAgeMs?: number;
  fetchTimeoutMs?: number;
}

/**
 * The identity provider's signing keys. Nothing is fetched at start (the provider may be down
 * then): discovery and the JWKS are fetched on the first token. Once keys are held they keep
 * verifying tokens while the provider is unreachable; without them, verification is a 503.
 */
export class OidcKeySet {
  readonly #settings: OidcSettings;
  readonly #logger: Logger;
  readonly #retryAfterFailureMs: number;
  readonly #keysMaxAgeMs: number;
  readonly #fetchTimeoutMs: number;
  #remote: RemoteKeySet | undefined;
  #discovering: Promise<RemoteKeySet> | undefined;
  #discoveryFailedAt = Number.NEGATIVE_INFINITY;
  #refreshFailedAt = Number.NEGATIVE_INFINITY;
  #heldKeys: { source: JSONWebKeySet; getKey: ReturnType<typeof createLocalJWKSet> } | undefined;

  constructor(settings: OidcSettings, logger: Logger, options: OidcKeySetOptions = {}) {
    this.#settings = settings;
    this.#logger = logger;
    this.#retryAfterFailureMs = options.retryAfterFailureMs ?? 30_000;
    this.#keysMaxAgeMs = options.keysMaxAgeMs ?? 10 * 60_000;
    this.#fetchTimeoutMs = options.fetchTimeoutMs ?? 5_000;
  }

  /** jose's key lookup for `jwtVerify`; throws ApiError 503 when no usable key can be had. */
  readonly getKey = async (header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> => {
    const remote = await this.#remoteKeySet();
    if (Date.now() - this.#refreshFailedAt < this.#retryAfterFailureMs) return this.#fromHeldKeys(remote, header, token);
    try {
      return await remote(header, token);
    } catch (error) {
      // A key the provider's current set lacks is the token's fault, not the provider's.
      if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JOSENotSupported) throw error;
      this.#refreshFailedAt = Date.now();
      this.#logger.warn('identity provider key set unreachable; verifying with the keys already held', { detail: (error as Error).message });
      return this.#fromHeldKeys(remote, header, token);
    }
  };

  async #fromHeldKeys(remote: RemoteKeySet, header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> {
    const source = remote.jwks();
    if (source === undefined) throw this.#unavailable();
    if (this.#heldKeys === undefined || JSON.stringify(this.#heldKeys.source) !== JSON.stringify(source)) {
      this.#heldKeys = { source, getKey: createLocalJWKSet(source) };
    }
    try {
      return await this.#heldKeys.getKey(header, token);
    } catch (error) {
      // The token may be signed with a key published since; it cannot be checked until the provider is back.
      if (error instanceof joseErrors.JWKSNoMatchingKey) throw this.#unavailable();
      throw error;
    }
  }

  async #remoteKeySet(): Promise<RemoteKeySet> {
    if (this.#remote) return this.#remote;
    if (Date.now() - this.#discoveryFailedAt < this.#retryAfterFailureMs) throw this.#unavailable();
    this.#discovering ??= this.#discover().finally(() => {
      this.#discovering = undefined;
    });
    return this.#discovering;
  }

  async #discover(): Promise<RemoteKeySet> {
    const { issuerUrl, fetchUrlFor } = this.#settings;
    const discoveryUrl = fetchUrlFor(`${issuerUrl.replace(/\/+$/, '')}/.well-known/openid-configuration`);
    try {
      const response = await fetch(discoveryUrl, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(this.#fetchTimeoutMs) });
      if (!response.ok) throw new Error(`discovery answered HTTP ${response.status}`);
      const document = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
      if (document.issuer !== issuerUrl) throw new Error(`discovery names the issuer ${JSON.stringify(document.issuer)}, not OIDC_ISSUER_URL`);
      if (typeof document.jwks_uri !== 'string') throw new Error('discovery has no jwks_uri');
      const jwksUrl = new URL(fetchUrlFor(document.jwks_uri));
      this.#logger.info('identity provider discovered', { issuer: issuerUrl, jwksUri: jwksUrl.href });
      this.#remote = createRemoteJWKSet(jwksUrl, { cacheMaxAge: this.#keysMaxAgeMs, timeoutDuration: this.#fetchTimeoutMs });
      return this.#remote;
    } catch (error) {
      this.#discoveryFailedAt = Date.now();
      this.#logger.warn('identity provider discovery failed', { url: discoveryUrl, detail: (error as Error).message });
      throw this.#unavailable();
    }
  }

  #unavailable(): ApiError {
    return serviceUnavailable('the identity provider cannot be reached to fetch its signing keys; retry shortly', 'IdentityProviderUnavailable', Math.ceil(this.#retryAfterFailureMs / 1000));
  }
}
