import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../config/config-error.ts';
import type { TlsSettings } from '../config/settings.ts';
import { generateTlsCertificate } from './self-signed-certificate.ts';

/** The serving certificate and key of an HTTPS entry, with the certificate's SHA-256 fingerprint. */
export interface ServerTls {
  cert: string;
  key: string;
  fingerprint: string;
  /** Where the certificate is on disk, for the start-up log: a client trusts it with this file. */
  certificateFile: string;
}

/**
 * The certificate and key of TLS_CERT_FILE and TLS_KEY_FILE, read and checked at start so a
 * wrong path or a key of another certificate refuses to start instead of failing every handshake.
 */
export async function tlsFromSettings(tls: TlsSettings): Promise<ServerTls | undefined> {
  if (tls.files === undefined) return undefined;
  const cert = await readPem('TLS_CERT_FILE', tls.files.certFile);
  const key = await readPem('TLS_KEY_FILE', tls.files.keyFile);
  return checkedPair(cert, key, tls.files.certFile);
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
    return checkedPair(existing[0], existing[1], certFile);
  const generated = await generateTlsCertificate('localhost', 365);
  await mkdir(folder, { recursive: true });
  await writeFile(keyFile, generated.key, { mode: 0o600 });
  await writeFile(certFile, generated.cert);
  return checkedPair(generated.cert, generated.key, certFile);
}

async function readPem(variable: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      variable,
      `cannot read "${file}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

function checkedPair(cert: string, key: string, certificateFile: string): ServerTls {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw new ConfigError('TLS_CERT_FILE', 'is not a PEM certificate');
  }
  try {
    if (!certificate.checkPrivateKey(createPrivateKey(key))) throw new Error('mismatch');
  } catch {
    throw new ConfigError('TLS_KEY_FILE', 'is not the PEM private key of the certificate in TLS_CERT_FILE');
  }
  return { cert, key, fingerprint: certificate.fingerprint256, certificateFile };
}
