import type { Environment } from '../../../shared/base/config/environment.ts';

/** What the fleet decides for every replica; the rest of the environment is forwarded as given. */
export interface ReplicaOverrides {
  /** The shared secret folder every replica follows. */
  adminSecretFolder: string;
  kubeconfigPath: string;
  databaseUrl: string;
  /** The gateway's own URL: the issuer of admin tokens unless API_BASE_URL names another. */
  gatewayUrl: string;
  /** The browser origins the replicas allow: the gateway's parsed list, which local mode extends with the console's. */
  corsAllowedOrigins: readonly string[];
}

/**
 * The environment the fleet hands each replica, which parses its own settings from it. Only
 * forwarding happens here: the gateway's own settings come from its parsed Settings. The
 * gateway's serving settings are not the replicas': each is told its port and target by flags,
 * and serves plain HTTP to the gateway on the loopback interface.
 */
export function replicaEnvironment(forwarded: Environment, overrides: ReplicaOverrides): Environment {
  const {
    PORT: _port,
    FUNCTION_TARGET: _target,
    TLS_CERT_FILE: _cert,
    TLS_KEY_FILE: _key,
    LOCAL_HTTPS: _localHttps,
    TRUSTED_PROXY_HOPS: _trustedHops,
    ...rest
  } = forwarded;
  return {
    ...rest,
    ADMIN_SECRET_SOURCE: `file:${overrides.adminSecretFolder}`,
    KUBECONFIG: overrides.kubeconfigPath,
    DATABASE_URL: overrides.databaseUrl,
    // Tokens name the gateway, which every client talks to, as their issuer.
    API_BASE_URL: forwarded.API_BASE_URL?.trim() || overrides.gatewayUrl,
    // The gateway, their only peer (they listen on loopback), replaces X-Forwarded-For with the one
    // client address it determined by its own TRUSTED_PROXY_HOPS: exactly one hop to trust.
    TRUSTED_PROXY_HOPS: '1',
    // The replicas answer CORS themselves (the gateway forwards): the gateway's list, the local console's origins included.
    CORS_ALLOWED_ORIGINS: overrides.corsAllowedOrigins.join(','),
  };
}
