import type { TokenAuthenticator } from '../../auth/authenticator.ts';
import { OidcKeySet } from '../../auth/oidc-key-set.ts';
import { OidcTokenAuthenticator } from '../../auth/oidc-token-authenticator.ts';
import { ServiceAccountKeySet } from '../../auth/service-account-key-set.ts';
import { ServiceAccountTokenAuthenticator } from '../../auth/service-account-token-authenticator.ts';
import type { Authorizer } from '../../authz/authorizer.ts';
import { PrincipalAuthorizer } from '../../authz/principal-authorizer.ts';
import { ServiceAccountClaimIndex } from '../../authz/service-account-claim-index.ts';
import { claimAnnotationNames } from '../../authz/service-account-claims.ts';
import { SubjectAccessReviewCache } from '../../authz/subject-access-review-cache.ts';
import { KubernetesSubjectAccessReviewer } from '../../authz/subject-access-reviewer.ts';
import type { IdentityConfig } from '../../base/config/identity-config.ts';
import type { Settings } from '../../base/config/settings.ts';
import {
  connectToCluster,
  type ClusterChoice,
  type ClusterConnection,
} from '../../base/kubernetes/cluster-connection.ts';
import { ServiceAccountIssuers } from '../../base/kubernetes/service-account-issuers.ts';
import { watchServiceAccounts } from '../../authz/service-account-watch.ts';
import type { Logger } from '../../base/logging/logger.ts';
import { NO_METRICS, type Metrics } from '../../base/metrics/metrics.ts';

/** The identity side of the context: OIDC and ServiceAccount verification, authorization, the cluster. */
export interface IdentityServices {
  config: IdentityConfig;
  kubernetes: ClusterConnection;
  /** Tried after the admin authenticator, in this order. */
  tokenAuthenticators: TokenAuthenticator[];
  authorizer: Authorizer;
  close(): Promise<void>;
}

/** How long start-up waits for the first ServiceAccount list before serving anyway (mappings then 503 until loaded). */
const FIRST_SYNC_WAIT_MS = 5_000;

/** Builds OIDC and ServiceAccount verification and the authorizer from the parsed settings. */
export async function createIdentityServices(
  settings: Settings,
  logger: Logger,
  cluster: ClusterChoice = {},
  metrics: Metrics = NO_METRICS,
): Promise<IdentityServices> {
  const { identity, server: config } = settings;
  const kubernetes = await connectToCluster(settings.cluster, config, logger, cluster);
  logger.info('Kubernetes API', { cluster: kubernetes.description });
  const issuers = new ServiceAccountIssuers(identity.serviceAccountIssuers, kubernetes.kubeConfig, logger);
  const tokenAuthenticators: TokenAuthenticator[] = [];
  let claimIndex: ServiceAccountClaimIndex | undefined;
  let stopWatch = async () => {};
  if (identity.oidc) {
    tokenAuthenticators.push(new OidcTokenAuthenticator(identity.oidc, new OidcKeySet(identity.oidc, logger)));
    claimIndex = new ServiceAccountClaimIndex(claimAnnotationNames(config.apiGroup), logger);
    const watch = watchServiceAccounts(kubernetes.kubeConfig, claimIndex, logger);
    stopWatch = () => watch.stop();
    await Promise.race([watch.firstAttempt, new Promise((resolve) => setTimeout(resolve, FIRST_SYNC_WAIT_MS).unref())]);
    const { issuerUrl, usernameClaim, usernamePrefix, groupsPrefix } = identity.oidc;
    logger.info('OIDC enabled', { issuer: issuerUrl, usernameClaim, usernamePrefix, groupsPrefix });
  }
  const serviceAccountKeys = new ServiceAccountKeySet(issuers, kubernetes.kubeConfig, logger);
  // Not awaited: the cluster may be down at start; the first ServiceAccount token asks again.
  // With none configured there is nothing to ask: the start-up log has said so once already.
  if (kubernetes.configured) void serviceAccountKeys.load();
  tokenAuthenticators.push(
    new ServiceAccountTokenAuthenticator(
      issuers,
      serviceAccountKeys,
      kubernetes.kubeConfig,
      logger,
      (result, seconds) => metrics.clusterReview('TokenReview', result, seconds),
    ),
  );
  const reviewer = new SubjectAccessReviewCache(
    new KubernetesSubjectAccessReviewer(kubernetes.kubeConfig, logger, (result, seconds) =>
      metrics.clusterReview('SubjectAccessReview', result, seconds),
    ),
    { onLookup: (hit) => metrics.reviewCacheLookup('subject_access_review', hit) },
  );
  return {
    config: identity,
    kubernetes,
    tokenAuthenticators,
    authorizer: new PrincipalAuthorizer(reviewer, claimIndex),
    async close() {
      await stopWatch();
      await kubernetes.close();
    },
  };
}
