import type { TokenAuthenticator } from '../../auth/authenticator.ts';
import { ADMIN_BYPASS, type Authorizer } from '../../authz/authorizer.ts';
import { ApiError } from '../../base/http/api-error.ts';
import type { Logger } from '../../base/logging/logger.ts';
import type { IdentityServices } from './identity-services.ts';
import type { ClusterConnection } from '../../base/kubernetes/cluster-connection.ts';
import { apiError } from '../../base/http/error-catalogue.ts';

/** The parts of the identity services a function reaches through its context when they are built on first use. */
export interface IdentityOnFirstUse {
  tokenAuthenticator: TokenAuthenticator;
  authorizer: Authorizer;
  /** The cluster connection, made with the rest of the services when first asked for. */
  cluster(): Promise<ClusterConnection>;
  /** The cluster connection if made already; undefined before the first request that needed it. */
  connected(): ClusterConnection | undefined;
  close(): Promise<void>;
}

/**
 * Identity services built the first time a request needs them: a token that is not the admin's,
 * or an authorization of a principal other than the admin. Until then the function has loaded
 * neither the Kubernetes client nor anything else of the cluster side, so it starts faster.
 */
export function identityOnFirstUse(build: () => Promise<IdentityServices>, logger: Logger): IdentityOnFirstUse {
  let building: Promise<IdentityServices> | undefined;
  let built: IdentityServices | undefined;
  let closed = false;
  const services = (): Promise<IdentityServices> => {
    if (closed) return Promise.reject(apiError('ShuttingDown', 'the server is shutting down'));
    building ??= build().then(
      (started) => (built = started),
      (error: unknown) => {
        // Forget the failure so that the next request tries again.
        building = undefined;
        if (error instanceof ApiError) throw error;
        logger.error('identity services could not be started', { error });
        throw apiError('KubernetesUnavailable', 'token verification is not available yet; retry shortly');
      },
    );
    return building;
  };
  return {
    tokenAuthenticator: {
      async authenticate(token, claims) {
        for (const authenticator of (await services()).tokenAuthenticators) {
          const result = await authenticator.authenticate(token, claims);
          if (result !== null) return result;
        }
        return null;
      },
    },
    authorizer: {
      async authorize(principal, attributes) {
        // The admin bypasses every check (PrincipalAuthorizer), so it never needs the cluster.
        if (principal.type === 'admin') return ADMIN_BYPASS;
        return (await services()).authorizer.authorize(principal, attributes);
      },
    },
    cluster: async () => (await services()).kubernetes,
    connected: () => built?.kubernetes,
    async close() {
      closed = true;
      built = undefined;
      const current = building;
      building = undefined;
      await current?.then(
        (started) => started.close(),
        () => undefined,
      );
    },
  };
}
