import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ConfigError } from '../../shared/base/config/config-error.ts';
import type { TlsSettings } from '../../shared/base/config/settings.ts';

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
  return checkedTlsPair(cert, key, tls.files.certFile);
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

/** A certificate and its key, checked to be PEM and a pair (a ConfigError naming TLS_CERT_FILE or TLS_KEY_FILE otherwise). */
export function checkedTlsPair(cert: string, key: string, certificateFile: string): ServerTls {
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
