import type { KubeConfig } from '@kubernetes/client-node';
import type { JWTVerifyGetKey } from 'jose';
import { ApiError } from '../base/http/api-error.ts';
import { createClusterKeySet } from '../base/kubernetes/cluster-key-set.ts';
import { kubernetesUnavailable } from '../base/kubernetes/kubernetes-unavailable.ts';
import {
  DEFAULT_SERVICE_ACCOUNT_ISSUER,
  type IssuerDiscovery,
  type ServiceAccountIssuers,
} from '../base/kubernetes/service-account-issuers.ts';
import type { Logger } from '../base/logging/logger.ts';
import { HeldKeySet } from './held-key-set.ts';
import { apiError, retryAfter } from '../base/http/error-catalogue.ts';

export interface ServiceAccountKeySetOptions {
  /** After a failed key fetch, how long to answer from the keys already held before asking the cluster again. */
  retryAfterFailureMs?: number;
  /** How long fetched keys count as fresh. */
  keysMaxAgeMs?: number;
  /** The least time between two fetches caused by tokens naming a `kid` the set lacks. */
  unknownKeyRefetchIntervalMs?: number;
  fetchTimeoutMs?: number;
}

/** The keys of the one issuer the cluster publishes a key set for. */
interface PublishedKeys {
  issuer: string;
  keys: HeldKeySet;
}

/**
 * The cluster's ServiceAccount signing keys, so that a token's signature and lifetime are checked
 * here before it costs the cluster a TokenReview: anyone can forge a JWT with the right `iss`.
 * The keys apply to the issuer the cluster's discovery document names, when it names a
 * `jwks_uri`. Tokens of other ServiceAccount issuers (listed in `SERVICE_ACCOUNT_ISSUERS`, or
 * every token on a cluster that publishes no discovery) have no key set here: TokenReview alone
 * vouches for them, which is logged once when the cluster first answers.
 */
export class ServiceAccountKeySet {
  readonly #issuers: Pick<ServiceAccountIssuers, 'configured' | 'discovery'>;
  readonly #kubeConfig: KubeConfig;
  readonly #logger: Logger;
  readonly #retryAfterFailureMs: number;
  readonly #keysMaxAgeMs: number;
  readonly #unknownKeyRefetchIntervalMs: number;
  readonly #fetchTimeoutMs: number;
  /** Undefined until the cluster's discovery is known; null when it publishes no key set. */
  #published: PublishedKeys | null | undefined;

  constructor(
    issuers: Pick<ServiceAccountIssuers, 'configured' | 'discovery'>,
    kubeConfig: KubeConfig,
    logger: Logger,
    options: ServiceAccountKeySetOptions = {},
  ) {
    this.#issuers = issuers;
    this.#kubeConfig = kubeConfig;
    this.#logger = logger;
    this.#retryAfterFailureMs = options.retryAfterFailureMs ?? 5_000;
    this.#keysMaxAgeMs = options.keysMaxAgeMs ?? 10 * 60_000;
    this.#unknownKeyRefetchIntervalMs = options.unknownKeyRefetchIntervalMs ?? 30_000;
    this.#fetchTimeoutMs = options.fetchTimeoutMs ?? 5_000;
  }

  /**
   * jose's key lookup for tokens of `issuer`, or undefined when the cluster publishes no key set
   * for it. Throws ApiError 503 when the cluster cannot be asked (fail closed).
   */
  async keysFor(issuer: string): Promise<JWTVerifyGetKey | undefined> {
    const published = await this.#publishedKeys();
    return published?.issuer === issuer ? published.keys.getKey : undefined;
  }

  /** Asks the cluster now (at start-up), so the log says at once how ServiceAccount tokens are verified. */
  async load(): Promise<void> {
    try {
      await (await this.#publishedKeys())?.keys.load();
    } catch (error) {
      // Already logged when it is the discovery; either way the first token asks again.
      if (!(error instanceof ApiError))
        this.#logger.warn('ServiceAccount key set not fetched at start-up; asked again on the first token', {
          detail: (error as Error).message,
        });
    }
  }

  async #publishedKeys(): Promise<PublishedKeys | null> {
    if (this.#published !== undefined) return this.#published;
    let discovery: IssuerDiscovery;
    try {
      discovery = await this.#issuers.discovery();
    } catch (error) {
      throw kubernetesUnavailable('ServiceAccount issuer discovery', error, this.#logger);
    }
    // Concurrent first tokens share one discovery; only the first of them builds and logs.
    this.#published ??= this.#keysOf(discovery);
    return this.#published;
  }

  #keysOf({ issuer, jwksUri }: IssuerDiscovery): PublishedKeys | null {
    const accepted = this.#issuers.configured ?? [issuer ?? DEFAULT_SERVICE_ACCOUNT_ISSUER];
    const published = issuer !== undefined && jwksUri !== undefined && accepted.includes(issuer) ? issuer : undefined;
    const unchecked = accepted.filter((candidate) => candidate !== published);
    if (unchecked.length > 0) {
      this.#logger.warn(
        'the cluster publishes no key set for these ServiceAccount issuers: their tokens are verified by TokenReview alone, one call per new token',
        { issuers: unchecked },
      );
    }
    if (published === undefined) return null;
    this.#logger.info("ServiceAccount token signatures are checked against the cluster's key set before TokenReview", {
      issuer: published,
      jwksUri,
    });
    const remote = createClusterKeySet(this.#kubeConfig, {
      cacheMaxAge: this.#keysMaxAgeMs,
      cooldownDuration: this.#unknownKeyRefetchIntervalMs,
      timeoutDuration: this.#fetchTimeoutMs,
    });
    const keys = new HeldKeySet(remote, {
      retryAfterFailureMs: this.#retryAfterFailureMs,
      publisher: 'cluster ServiceAccount',
      unavailable: () =>
        apiError(
          'KubernetesUnavailable',
          'the Kubernetes API cannot be reached to fetch its ServiceAccount signing keys; retry shortly',
          retryAfter(Math.ceil(this.#retryAfterFailureMs / 1000)),
        ),
      logger: this.#logger,
    });
    return { issuer: published, keys };
  }
}
