import type { Environment } from '../shared/config/server-config.ts';
import { ConfigError } from '../shared/config/config-error.ts';
import { localDevelopmentTls, tlsFromSettings, type ServerTls } from '../shared/tls/server-tls.ts';

/**
 * The local gateways' TLS (`npm start`, `npm run fleet`): TLS_CERT_FILE/TLS_KEY_FILE when given;
 * else, with LOCAL_HTTPS=true, a certificate made under the local state folder (`<dataDir>/tls/`).
 */
export async function gatewayTls(env: Environment, dataDir: string): Promise<ServerTls | undefined> {
  const given = await tlsFromSettings(env);
  const local = env.LOCAL_HTTPS?.trim() ?? '';
  if (!['', 'true', 'false'].includes(local)) throw new ConfigError('LOCAL_HTTPS', `"${local}" is not true or false`);
  if (given || local !== 'true') return given;
  return localDevelopmentTls(dataDir);
}
