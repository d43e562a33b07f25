import { AuthenticationV1Api, type KubeConfig, type V1TokenReview } from '@kubernetes/client-node';
import { jwtVerify } from 'jose';
import { ApiError } from '../base/http/api-error.ts';
import type { Logger } from '../base/logging/logger.ts';
import { kubernetesUnavailable } from '../base/kubernetes/kubernetes-unavailable.ts';
import type { ServiceAccountIssuers } from '../base/kubernetes/service-account-issuers.ts';
import type { Authentication, TokenAuthenticator, UnverifiedClaims } from './authenticator.ts';
import { describeJoseError } from './jose-error-message.ts';
import type { ServiceAccountKeySet } from './service-account-key-set.ts';
import { apiError } from '../base/http/error-catalogue.ts';
import { clusterApiSpan } from '../base/kubernetes/kubernetes-call-span.ts';
import { inSpan } from '../base/tracing/tracing.ts';

/** How long a TokenReview's answer is trusted (a deleted ServiceAccount's token dies within it). */
const TOKEN_REVIEW_TTL_MS = 10_000;

// What kube-apiserver signs ServiceAccount tokens with: RS256 for RSA keys, ES256/384/512 for ECDSA ones.
const ALGORITHMS = ['RS256', 'ES256', 'ES384', 'ES512'];

/**
 * Verifies ServiceAccount tokens. It owns only tokens whose `iss` is a ServiceAccount issuer, so
 * a JWT with any other issuer never costs the cluster a call. The signature and lifetime are
 * checked first against the cluster's published key set (when it publishes one for the issuer),
 * so a forged or expired token never costs one either. What passes goes to TokenReview, which
 * alone knows about revoked bound tokens and deleted ServiceAccounts. The request authenticator
 * caches the answer for `TOKEN_REVIEW_TTL_MS` (or until `exp`) and coalesces concurrent reviews
 * of one token.
 */
export class ServiceAccountTokenAuthenticator implements TokenAuthenticator {
  readonly #issuers: ServiceAccountIssuers;
  readonly #keys: ServiceAccountKeySet;
  readonly #api: AuthenticationV1Api;
  readonly #logger: Logger;
  readonly #kubeConfig: KubeConfig;
  readonly #observe: ((result: string, seconds: number) => void) | undefined;

  /** `observe` hears each TokenReview's result (`authenticated`, `rejected`, `error`) and latency (the metrics). */
  constructor(
    issuers: ServiceAccountIssuers,
    keys: ServiceAccountKeySet,
    kubeConfig: KubeConfig,
    logger: Logger,
    observe?: (result: string, seconds: number) => void,
  ) {
    this.#issuers = issuers;
    this.#keys = keys;
    this.#api = kubeConfig.makeApiClient(AuthenticationV1Api);
    this.#logger = logger;
    this.#kubeConfig = kubeConfig;
    this.#observe = observe;
  }

  async authenticate(token: string, claims: UnverifiedClaims): Promise<Authentication | null> {
    if (typeof claims.iss !== 'string' || !(await this.#issuers.includes(claims.iss))) return null;
    await this.#checkSignature(token, claims.iss);
    const startedAt = performance.now();
    const seconds = () => (performance.now() - startedAt) / 1000;
    // The span carries the cluster's address and whether it vouched for the token: never the token.
    const review = await inSpan(
      () => clusterApiSpan('TokenReview', this.#kubeConfig),
      async (span) => {
        let answer: V1TokenReview;
        try {
          answer = await this.#api.createTokenReview({
            body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
          });
        } catch (error) {
          this.#observe?.('error', seconds());
          throw kubernetesUnavailable('TokenReview', error, this.#logger);
        }
        span?.setAttribute('platform_api.authentication.authenticated', answer.status?.authenticated === true);
        return answer;
      },
    );
    const status = review.status;
    const authenticated = status?.authenticated === true && !!status.user?.username;
    this.#observe?.(authenticated ? 'authenticated' : 'rejected', seconds());
    if (status?.authenticated !== true || !status.user?.username) {
      throw apiError('InvalidToken', 'the cluster did not accept this ServiceAccount token');
    }
    const { username, uid, groups, extra } = status.user;
    const reviewedUntil = Date.now() + TOKEN_REVIEW_TTL_MS;
    // Legacy Secret-based tokens carry no `exp`: they live until the cluster revokes them.
    const expiresAt = typeof claims.exp === 'number' ? claims.exp * 1000 : undefined;
    return {
      principal: {
        type: 'serviceaccount',
        name: username,
        uid: uid ?? '',
        groups: groups ?? [],
        extra: extra ?? {},
        ...(expiresAt === undefined ? {} : { expiresAt }),
      },
      cacheUntil: expiresAt === undefined ? reviewedUntil : Math.min(expiresAt, reviewedUntil),
    };
  }

  /** 401 for a bad signature or lifetime; nothing to check when the cluster publishes no keys for the issuer. */
  async #checkSignature(token: string, issuer: string): Promise<void> {
    const getKey = await this.#keys.keysFor(issuer);
    if (getKey === undefined) return;
    try {
      await jwtVerify(token, getKey, { algorithms: ALGORITHMS, issuer });
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw apiError('InvalidToken', describeJoseError(error));
    }
  }
}
