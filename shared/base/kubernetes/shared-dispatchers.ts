// client-node's generated clients (SubjectAccessReview, TokenReview, the ServiceAccount issuer's
// documents, the Secret watch) send through undici, and `applySecurityAuthentication` makes a new
// undici Agent for every call when the cluster has TLS settings (a CA, a client certificate),
// which is always so in a cluster: a TCP connection and a TLS handshake per call, and an Agent
// left to linger with its socket. Their answers are cached (SubjectAccessReviewCache, the
// TokenReview cache), so these are cache misses, but each was a new connection.
import type { KubeConfig } from '@kubernetes/client-node';

/** What `applySecurityAuthentication` works on, as far as the dispatcher goes. */
interface DispatchingContext {
  getDispatcher(): { close(): Promise<void> } | undefined;
  setDispatcher(dispatcher: unknown): void;
}

const sharing = new WeakSet<KubeConfig>();

/**
 * Makes `kubeConfig`'s generated clients share one undici Agent per set of connection settings
 * (server, proxy, CA, client certificate and key, server name, verification), so that their
 * calls reuse connections. The settings are read for every call, as client-node reads them: a
 * rotated client certificate gets an Agent of its own.
 */
export function shareGeneratedClientConnections(kubeConfig: KubeConfig): KubeConfig {
  // Once per KubeConfig: a second wrapper would take the first one's shared Agent for a new one and close it.
  if (sharing.has(kubeConfig)) return kubeConfig;
  sharing.add(kubeConfig);
  const authenticate = kubeConfig.applySecurityAuthentication.bind(kubeConfig);
  const shared = new Map<string, unknown>();
  kubeConfig.applySecurityAuthentication = async (context) => {
    await authenticate(context);
    const made = (context as unknown as DispatchingContext).getDispatcher();
    if (made === undefined) return; // No TLS settings: undici's global dispatcher, which keeps its connections.
    const key = await connectionSettings(kubeConfig);
    const kept = shared.get(key);
    if (kept === undefined) {
      shared.set(key, made);
      return;
    }
    // The Agent just made has not connected: closing it costs nothing.
    void made.close();
    (context as unknown as DispatchingContext).setDispatcher(kept);
  };
  return kubeConfig;
}

async function connectionSettings(kubeConfig: KubeConfig): Promise<string> {
  const cluster = kubeConfig.getCurrentCluster();
  const tls: {
    ca?: unknown;
    cert?: unknown;
    key?: unknown;
    pfx?: unknown;
    servername?: string;
    rejectUnauthorized?: boolean;
  } = {};
  await kubeConfig.applyToHTTPSOptions(tls);
  const text = (value: unknown) => (value === undefined ? '' : String(value));
  return JSON.stringify([
    cluster?.server,
    cluster?.proxyUrl,
    text(tls.ca),
    text(tls.cert),
    text(tls.key),
    text(tls.pfx),
    tls.servername,
    tls.rejectUnauthorized,
  ]);
}
