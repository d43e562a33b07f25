import type { Settings } from '../../../shared/config/settings.ts';
import { localDevelopmentTls, tlsFromSettings, type ServerTls } from '../../../shared/tls/server-tls.ts';

/**
 * The local gateways' TLS (`npm start`, `npm run fleet`): TLS_CERT_FILE/TLS_KEY_FILE when given;
 * else, with LOCAL_HTTPS=true, a certificate made under the local state folder (`<dataDir>/tls/`).
 */
export async function gatewayTls(
  settings: Pick<Settings, 'tls' | 'local'>,
  dataDir: string,
): Promise<ServerTls | undefined> {
  const given = await tlsFromSettings(settings.tls);
  if (given || !settings.local.https) return given;
  return localDevelopmentTls(dataDir);
}
