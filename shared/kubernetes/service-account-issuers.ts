import { ApiException, WellKnownApi, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '../logging/logger.ts';

/** The issuer of ServiceAccount tokens when neither the configuration nor the cluster names one. */
const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
const DEFAULT_ISSUERS: ReadonlySet<string> = new Set([DEFAULT_SERVICE_ACCOUNT_ISSUER]);

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
  #discovered: ReadonlySet<string> | undefined;
  #discovering: Promise<ReadonlySet<string>> | undefined;
  #failedAt = Number.NEGATIVE_INFINITY;

  constructor(configured: string[] | undefined, kubeConfig: KubeConfig, logger: Logger, retryAfterFailureMs = 5_000) {
    this.#configured = configured;
    this.#api = kubeConfig.makeApiClient(WellKnownApi);
    this.#logger = logger;
    this.#retryAfterFailureMs = retryAfterFailureMs;
  }

  /** Whether `issuer` is a ServiceAccount issuer. */
  async includes(issuer: string): Promise<boolean> {
    if (this.#configured) return this.#configured.includes(issuer);
    return (await this.#issuers()).has(issuer);
  }

  async #issuers(): Promise<ReadonlySet<string>> {
    if (this.#discovered) return this.#discovered;
    if (Date.now() - this.#failedAt < this.#retryAfterFailureMs) return DEFAULT_ISSUERS;
    this.#discovering ??= this.#discover().finally(() => {
      this.#discovering = undefined;
    });
    return this.#discovering;
  }

  async #discover(): Promise<ReadonlySet<string>> {
    let document: unknown;
    try {
      document = await this.#api.getServiceAccountIssuerOpenIDConfiguration();
    } catch (error) {
      if (!(error instanceof ApiException && error.code === 404)) {
        this.#failedAt = Date.now();
        this.#logger.warn('ServiceAccount issuer discovery failed; assuming the default issuer until the cluster answers', {
          detail: error instanceof ApiException ? `HTTP ${error.code}` : (error as Error).message,
        });
        return DEFAULT_ISSUERS;
      }
    }
    const issuer = readIssuer(document);
    this.#logger.info('ServiceAccount token issuer', { issuer: issuer ?? DEFAULT_SERVICE_ACCOUNT_ISSUER, source: issuer ? 'cluster discovery' : 'default' });
    this.#discovered = issuer ? new Set([issuer]) : DEFAULT_ISSUERS;
    return this.#discovered;
  }
}

// client-node declares the document as a string; depending on the content type it arrives parsed or not.
function readIssuer(document: unknown): string | undefined {
  const parsed = typeof document === 'string' ? safeJson(document) : document;
  const issuer = (parsed as { issuer?: unknown } | undefined)?.issuer;
  return typeof issuer === 'string' && issuer !== '' ? issuer : undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
