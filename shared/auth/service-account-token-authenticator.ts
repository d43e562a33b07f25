import { AuthenticationV1Api, type KubeConfig, type V1TokenReview } from '@kubernetes/client-node';
import { unauthorized } from '../http/api-error.ts';
import type { Logger } from '../logging/logger.ts';
import { kubernetesUnavailable } from '../kubernetes/kubernetes-unavailable.ts';
import type { ServiceAccountIssuers } from '../kubernetes/service-account-issuers.ts';
import type { Authentication, TokenAuthenticator, UnverifiedClaims } from './authenticator.ts';

/** How long a TokenReview's answer is trusted (a deleted ServiceAccount's token dies within it). */
const TOKEN_REVIEW_TTL_MS = 10_000;

/**
 * Verifies ServiceAccount tokens with a TokenReview. It owns only tokens whose `iss` is a
 * ServiceAccount issuer, so a JWT with any other issuer never costs the cluster a call.
 * The request authenticator caches the answer for `TOKEN_REVIEW_TTL_MS` (or until `exp`)
 * and coalesces concurrent reviews of one token.
 */
export class ServiceAccountTokenAuthenticator implements TokenAuthenticator {
  readonly #issuers: ServiceAccountIssuers;
  readonly #api: AuthenticationV1Api;
  readonly #logger: Logger;

  constructor(issuers: ServiceAccountIssuers, kubeConfig: KubeConfig, logger: Logger) {
    this.#issuers = issuers;
    this.#api = kubeConfig.makeApiClient(AuthenticationV1Api);
    this.#logger = logger;
  }

  async authenticate(token: string, claims: UnverifiedClaims): Promise<Authentication | null> {
    if (typeof claims.iss !== 'string' || !(await this.#issuers.includes(claims.iss))) return null;
    let review: V1TokenReview;
    try {
      review = await this.#api.createTokenReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } } });
    } catch (error) {
      throw kubernetesUnavailable('TokenReview', error, this.#logger);
    }
    const status = review.status;
    if (status?.authenticated !== true || !status.user?.username) {
      throw unauthorized('the cluster did not accept this ServiceAccount token', 'InvalidToken');
    }
    const { username, uid, groups, extra } = status.user;
    const reviewedUntil = Date.now() + TOKEN_REVIEW_TTL_MS;
    return {
      principal: { type: 'serviceaccount', name: username, uid: uid ?? '', groups: groups ?? [], extra: extra ?? {} },
      cacheUntil: typeof claims.exp === 'number' ? Math.min(claims.exp * 1000, reviewedUntil) : reviewedUntil,
    };
  }
}
