// Issue 13, TLS: every server entry serves HTTPS from TLS_CERT_FILE/TLS_KEY_FILE; `npm start` can make its own
// certificate under `.data/` (LOCAL_HTTPS=true) and reuse it; wrong settings refuse to start.
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFunctionServer } from '../../../knative/function-server.ts';
import { ConfigError } from '../../../shared/base/config/config-error.ts';
import { generateTlsCertificate } from '../../../infra/kube-emulator/self-signed-certificate.ts';
import { tlsFromSettings } from '../../../knative/node-http/server-tls.ts';
import { localDevelopmentTls } from '../../../infra/development/gateway/gateway-tls.ts';
import { ADMIN_PASSWORD, adminEnv } from '../../support/admin-fixtures.ts';
import { capturingLogger, loginToken, silentLogger, startTestGateway } from '../../support/function-servers.ts';
import { loadSettings } from '../../../shared/base/config/settings.ts';

let folder = '';
let files: { TLS_CERT_FILE: string; TLS_KEY_FILE: string };
let otherKeyFile = '';

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tls-settings-'));
  const [served, other] = await Promise.all([generateTlsCertificate('127.0.0.1'), generateTlsCertificate('127.0.0.1')]);
  files = { TLS_CERT_FILE: join(folder, 'tls.crt'), TLS_KEY_FILE: join(folder, 'tls.key') };
  otherKeyFile = join(folder, 'other.key');
  await Promise.all([
    writeFile(files.TLS_CERT_FILE, served.cert),
    writeFile(files.TLS_KEY_FILE, served.key),
    writeFile(otherKeyFile, other.key),
  ]);
  setDefaultCACertificates([...getCACertificates('default'), served.cert]);
});

afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('Every server entry serves HTTPS from the certificate and key given by TLS_CERT_FILE and TLS_KEY_FILE', () => {
  it('the container entry serves HTTPS', async () => {
    const running = await startFunctionServer(
      loadSettings({ ...adminEnv(), ...files, FUNCTION_TARGET: 'login', PORT: '0' }),
      { logger: silentLogger, host: '127.0.0.1' },
    );
    try {
      expect(running.url).toMatch(/^https:\/\//);
      expect(await loginToken(running.url, ADMIN_PASSWORD)).toMatch(/^ey/);
      await expect(fetch(`${running.url.replace('https:', 'http:')}/healthz`)).rejects.toThrow();
    } finally {
      await running.close();
    }
  });

  it("the local gateway serves HTTPS and logs the certificate's fingerprint at start-up", async () => {
    const logger = capturingLogger();
    const running = await startTestGateway({ ...adminEnv(), ...files }, { logger });
    try {
      expect(running.url).toMatch(/^https:\/\//);
      expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
      const fingerprint = new X509Certificate(await readFile(files.TLS_CERT_FILE, 'utf8')).fingerprint256;
      expect(logger.lines.find((line) => line.includes('local gateway listening'))).toContain(fingerprint);
    } finally {
      await running.close();
    }
  });
});

describe('TLS settings are checked at start, naming the variable', () => {
  // The pair is checked where the settings are parsed, the files where they are read: both name the variable.
  const refusal = (env: Record<string, string>) =>
    Promise.resolve()
      .then(() => tlsFromSettings(loadSettings(env).tls))
      .then(
        () => undefined,
        (error: unknown) => error,
      );

  it('refuses one of the pair without the other, an unreadable file and a key of another certificate', async () => {
    expect(await refusal({ TLS_CERT_FILE: files.TLS_CERT_FILE })).toMatchObject({ variable: 'TLS_KEY_FILE' });
    expect(await refusal({ TLS_KEY_FILE: files.TLS_KEY_FILE })).toMatchObject({ variable: 'TLS_CERT_FILE' });
    expect(
      await refusal({ TLS_CERT_FILE: join(folder, 'missing.crt'), TLS_KEY_FILE: files.TLS_KEY_FILE }),
    ).toMatchObject({ variable: 'TLS_CERT_FILE' });
    expect(await refusal({ TLS_CERT_FILE: files.TLS_KEY_FILE, TLS_KEY_FILE: files.TLS_KEY_FILE })).toMatchObject({
      variable: 'TLS_CERT_FILE',
    });
    const mismatch = await refusal({ TLS_CERT_FILE: files.TLS_CERT_FILE, TLS_KEY_FILE: otherKeyFile });
    expect(mismatch).toBeInstanceOf(ConfigError);
    expect(mismatch).toMatchObject({ variable: 'TLS_KEY_FILE' });
  });

  it('refuses a LOCAL_HTTPS that is not true or false', async () => {
    await expect(startTestGateway({ ...adminEnv(), LOCAL_HTTPS: 'yes' })).rejects.toMatchObject({
      variable: 'LOCAL_HTTPS',
    });
  });
});

describe('npm start with LOCAL_HTTPS=true makes its own certificate under .data/ and keeps it', () => {
  it('generates a localhost certificate once, with a private key only its owner reads, and reuses it', async () => {
    const data = join(folder, 'data');
    const first = await localDevelopmentTls(data);
    const certificate = new X509Certificate(await readFile(join(data, 'tls', 'localhost.crt'), 'utf8'));
    expect(certificate.fingerprint256).toBe(first.fingerprint);
    expect(certificate.subjectAltName).toContain('DNS:localhost');
    expect((await stat(join(data, 'tls', 'localhost.key'))).mode & 0o077).toBe(0);
    expect((await localDevelopmentTls(data)).fingerprint).toBe(first.fingerprint);
  });
});
