// A throwaway self-signed serving certificate (the emulator's `tls: true`; local development's LOCAL_HTTPS imports it
// from here, as the emulator may import nothing outside its folder), made with the openssl CLI (node:crypto cannot
// issue X.509 certificates). It is its own CA: kubeconfigs trust it through certificate-authority-data.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** PEM texts of a serving certificate and its private key. */
export interface TlsCertificate {
  cert: string;
  key: string;
}

function subjectAltNames(host: string): string {
  const names = new Set(['IP:127.0.0.1', 'DNS:localhost', `${isIP(host) ? 'IP' : 'DNS'}:${host}`]);
  return [...names].join(',');
}

/** Generates a P-256 certificate valid for 127.0.0.1, localhost and `host`, for `days` (default one). */
export async function generateTlsCertificate(host: string, days = 1): Promise<TlsCertificate> {
  const folder = await mkdtemp(join(tmpdir(), 'self-signed-tls-'));
  try {
    const keyFile = join(folder, 'key.pem');
    const certFile = join(folder, 'cert.pem');
    // Async on purpose: a synchronous child process would block the event loop of in-process servers.
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      String(days),
      '-subj',
      '/CN=localhost',
      '-addext',
      `subjectAltName=${subjectAltNames(host)}`,
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ]).catch((error: unknown) => {
      const { stderr } = error as { stderr?: string };
      throw new Error(`openssl could not generate the TLS certificate: ${stderr || (error as Error).message}`);
    });
    const [cert, key] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
    return { cert, key };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
