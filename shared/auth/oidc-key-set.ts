import {
  createRemoteJWKSet,
  customFetch,
  type CryptoKey,
  type FlattenedJWSInput,
  type JWSHeaderParameters,
} from 'jose';
import type { OidcSettings } from '../base/config/identity-config.ts';
import type { ApiError } from '../base/http/api-error.ts';
import type { Logger } from '../base/logging/logger.ts';
import { HeldKeySet } from './held-key-set.ts';
import { apiError, retryAfter } from '../base/http/error-catalogue.ts';
import { tracedFetch } from '../base/tracing/traced-fetch.ts';

// Each fetch from the identity provider is a span of the request that needed the keys (with tracing on).
const fetchDiscovery = tracedFetch('OIDC discovery');
const fetchKeySet = tracedFetch('JWKS fetch');

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
  #keys: HeldKeySet | undefined;
  #discovering: Promise<HeldKeySet> | undefined;
  #discoveryFailedAt = Number.NEGATIVE_INFINITY;

  constructor(settings: OidcSettings, logger: Logger, options: OidcKeySetOptions = {}) {
    this.#settings = settings;
    this.#logger = logger;
    this.#retryAfterFailureMs = options.retryAfterFailureMs ?? 30_000;
    this.#keysMaxAgeMs = options.keysMaxAgeMs ?? 10 * 60_000;
    this.#fetchTimeoutMs = options.fetchTimeoutMs ?? 5_000;
  }

  /** jose's key lookup for `jwtVerify`; throws ApiError 503 when no usable key can be had. */
  readonly getKey = async (header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> =>
    (await this.#keySet()).getKey(header, token);

  async #keySet(): Promise<HeldKeySet> {
    if (this.#keys) return this.#keys;
    if (Date.now() - this.#discoveryFailedAt < this.#retryAfterFailureMs) throw this.#unavailable();
    this.#discovering ??= this.#discover().finally(() => {
      this.#discovering = undefined;
    });
    return this.#discovering;
  }

  async #discover(): Promise<HeldKeySet> {
    const { issuerUrl, fetchUrlFor } = this.#settings;
    const discoveryUrl = fetchUrlFor(`${issuerUrl.replace(/\/+$/, '')}/.well-known/openid-configuration`);
    try {
      const response = await fetchDiscovery(discoveryUrl, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.#fetchTimeoutMs),
      });
      if (!response.ok) throw new Error(`discovery answered HTTP ${response.status}`);
      const document = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
      if (document.issuer !== issuerUrl)
        throw new Error(`discovery names the issuer ${JSON.stringify(document.issuer)}, not OIDC_ISSUER_URL`);
      if (typeof document.jwks_uri !== 'string') throw new Error('discovery has no jwks_uri');
      const jwksUrl = new URL(fetchUrlFor(document.jwks_uri));
      this.#logger.info('identity provider discovered', { issuer: issuerUrl, jwksUri: jwksUrl.href });
      const remote = createRemoteJWKSet(jwksUrl, {
        cacheMaxAge: this.#keysMaxAgeMs,
        timeoutDuration: this.#fetchTimeoutMs,
        [customFetch]: fetchKeySet,
      });
      this.#keys = new HeldKeySet(remote, {
        retryAfterFailureMs: this.#retryAfterFailureMs,
        publisher: 'identity provider',
        unavailable: () => this.#unavailable(),
        logger: this.#logger,
      });
      return this.#keys;
    } catch (error) {
      this.#discoveryFailedAt = Date.now();
      this.#logger.warn('identity provider discovery failed', { url: discoveryUrl, detail: (error as Error).message });
      throw this.#unavailable();
    }
  }

  #unavailable(): ApiError {
    return apiError(
      'IdentityProviderUnavailable',
      'the identity provider cannot be reached to fetch its signing keys; retry shortly',
      retryAfter(Math.ceil(this.#retryAfterFailureMs / 1000)),
    );
  }
}
