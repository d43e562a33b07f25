import { ApiException, WellKnownApi, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '../logging/logger.ts';

/** The issuer of ServiceAccount tokens when neither the configuration nor the cluster names one. */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** What the cluster publishes at `/.well-known/openid-configuration`; both undefined when it publishes no document (404). */
export interface IssuerDiscovery {
  issuer: string | undefined;
  jwksUri: string | undefined;
}

/**
 * The issuers whose tokens are ServiceAccount tokens: `SERVICE_ACCOUNT_ISSUERS` when set, else
 * the issuer the cluster publishes at `/.well-known/openid-configuration` (asked lazily, kept
 * once answered), else the default. While the cluster cannot be asked, the default stands in
 * and the cluster is asked again at most once per `retryAfterFailureMs`, so a flood of forged
 * tokens cannot hammer it.
 */
export class ServiceAccountIssuers {
  readonly #configured: string[] | undefined;
  readonly #api: WellKnownApi;
  readonly #logger: Logger;
  readonly #retryAfterFailureMs: number;
  #discovered: IssuerDiscovery | undefined;
  #discovering: Promise<IssuerDiscovery> | undefined;
  #failedAt = Number.NEGATIVE_INFINITY;

  constructor(configured: string[] | undefined, kubeConfig: KubeConfig, logger: Logger, retryAfterFailureMs = 5_000) {
    this.#configured = configured;
    this.#api = kubeConfig.makeApiClient(WellKnownApi);
    this.#logger = logger;
    this.#retryAfterFailureMs = retryAfterFailureMs;
  }

  /** `SERVICE_ACCOUNT_ISSUERS`, when set. */
  get configured(): readonly string[] | undefined {
    return this.#configured;
  }

  /** Whether `issuer` is a ServiceAccount issuer. */
  async includes(issuer: string): Promise<boolean> {
    if (this.#configured) return this.#configured.includes(issuer);
    let discovered: IssuerDiscovery | undefined;
    try {
      discovered = await this.discovery();
    } catch {
      // Logged where it failed; the default stands in until the cluster answers.
    }
    return issuer === (discovered?.issuer ?? DEFAULT_SERVICE_ACCOUNT_ISSUER);
  }

  /**
   * The cluster's issuer discovery document, asked once and kept. Throws while the cluster
   * cannot be asked (then at most one call per `retryAfterFailureMs`).
   */
  async discovery(): Promise<IssuerDiscovery> {
    if (this.#discovered) return this.#discovered;
    if (Date.now() - this.#failedAt < this.#retryAfterFailureMs)
      throw new Error('ServiceAccount issuer discovery failed moments ago; not asked again yet');
    this.#discovering ??= this.#discover().finally(() => {
      this.#discovering = undefined;
    });
    return this.#discovering;
  }

  async #discover(): Promise<IssuerDiscovery> {
    let document: unknown;
    try {
      document = await this.#api.getServiceAccountIssuerOpenIDConfiguration();
    } catch (error) {
      if (!(error instanceof ApiException && error.code === 404)) {
        this.#failedAt = Date.now();
        const detail = error instanceof ApiException ? `HTTP ${error.code}` : (error as Error).message;
        this.#logger.warn(
          'ServiceAccount issuer discovery failed; asked again when the next ServiceAccount token comes',
          { detail },
        );
        throw new Error(`ServiceAccount issuer discovery failed: ${detail}`);
      }
    }
    const discovered = { issuer: readUrl(document, 'issuer'), jwksUri: readUrl(document, 'jwks_uri') };
    this.#logger.info('ServiceAccount token issuer', {
      issuer: discovered.issuer ?? DEFAULT_SERVICE_ACCOUNT_ISSUER,
      source: discovered.issuer ? 'cluster discovery' : 'default',
    });
    this.#discovered = discovered;
    return discovered;
  }
}

// client-node declares the document as a string; depending on the content type it arrives parsed or not.
function readUrl(document: unknown, field: 'issuer' | 'jwks_uri'): string | undefined {
  const parsed = typeof document === 'string' ? safeJson(document) : document;
  const value = (parsed as Record<string, unknown> | undefined)?.[field];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
