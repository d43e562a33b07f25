import { OpenidApi, type KubeConfig } from '@kubernetes/client-node';
import { createRemoteJWKSet, customFetch, type RemoteJWKSet, type RemoteJWKSetOptions } from 'jose';
import { inSpan } from '../tracing/tracing.ts';
import { clusterApiSpan } from './kubernetes-call-span.ts';

/** Where kube-apiserver serves its ServiceAccount key set, whatever `jwks_uri` its discovery names. */
const CLUSTER_JWKS_PATH = '/openid/v1/jwks';

/**
 * A jose remote key set over the cluster's ServiceAccount keys, fetched from the API server's own
 * `/openid/v1/jwks` through client-node, so the request carries the server's credentials, CA,
 * client certificate and proxy like every other Kubernetes call (the `system:service-account-issuer-discovery`
 * ClusterRole allows it). The discovery's `jwks_uri` may name a public or external address that
 * pods cannot reach; the API server serves the same keys itself.
 */
export function createClusterKeySet(
  kubeConfig: KubeConfig,
  options: Pick<RemoteJWKSetOptions, 'cacheMaxAge' | 'cooldownDuration' | 'timeoutDuration'>,
): RemoteJWKSet {
  const api = kubeConfig.makeApiClient(OpenidApi);
  // jose wants a URL; it is only passed back to the fetch below, which goes through client-node.
  const url = new URL(CLUSTER_JWKS_PATH, kubeConfig.getCurrentCluster()?.server ?? 'https://kubernetes.invalid');
  return createRemoteJWKSet(url, {
    ...options,
    [customFetch]: (_url, { signal }) =>
      inSpan(
        () => clusterApiSpan('JWKS fetch', kubeConfig),
        async () => {
          // client-node declares the key set as a string; with its JSON content type it arrives parsed.
          const keySet: unknown = await untilAborted(api.getServiceAccountIssuerOpenIDKeyset(), signal);
          return Response.json(typeof keySet === 'string' ? JSON.parse(keySet) : keySet);
        },
      ),
  });
}

// client-node takes no AbortSignal: jose's timeout gives up waiting instead.
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
