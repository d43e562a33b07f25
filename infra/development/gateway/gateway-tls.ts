import type { Settings } from '../../../shared/base/config/settings.ts';
import type { DevelopmentSettings } from '../local/local-settings.ts';
import { X509Certificate } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkedTlsPair, tlsFromSettings, type ServerTls } from '../../../knative/node-http/server-tls.ts';
import { generateTlsCertificate } from '../../kube-emulator/self-signed-certificate.ts';

/**
 * The local gateways' TLS (`npm start`, `npm run fleet`): TLS_CERT_FILE/TLS_KEY_FILE when given;
 * else, with LOCAL_HTTPS=true, a certificate made under the local state folder (`<dataDir>/tls/`).
 */
export async function gatewayTls(
  settings: Pick<Settings, 'tls'>,
  local: Pick<DevelopmentSettings, 'https' | 'dataDir'>,
): Promise<ServerTls | undefined> {
  const given = await tlsFromSettings(settings.tls);
  if (given || !local.https) return given;
  return localDevelopmentTls(local.dataDir);
}

/**
 * `npm start` or `npm run fleet` with LOCAL_HTTPS=true: a self-signed certificate for localhost kept under `<data dir>/tls/`,
 * made on first start and reused after, so a kubeconfig that trusts it keeps working.
 */
export async function localDevelopmentTls(dataDirectory: string): Promise<ServerTls> {
  const folder = join(dataDirectory, 'tls');
  const certFile = join(folder, 'localhost.crt');
  const keyFile = join(folder, 'localhost.key');
  const existing = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]).catch(() => undefined);
  if (existing && new Date(new X509Certificate(existing[0]).validTo).getTime() > Date.now() + 86_400_000)
    return checkedTlsPair(existing[0], existing[1], certFile);
  const generated = await generateTlsCertificate('localhost', 365);
  await mkdir(folder, { recursive: true });
  await writeFile(keyFile, generated.key, { mode: 0o600 });
  await writeFile(certFile, generated.cert);
  return checkedTlsPair(generated.cert, generated.key, certFile);
}
