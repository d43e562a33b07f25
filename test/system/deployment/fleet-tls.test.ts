// Issue 11 with issue 13: the fleet's gateway serves HTTPS from TLS_CERT_FILE/TLS_KEY_FILE, as
// `npm start` does; its replicas stay plain HTTP behind it on the loopback interface.
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from '../../../infra/development/fleet/fleet.ts';
import { FLEET_START_BOUND_MS, REPLICA_START_BOUND_MS } from '../../support/fleet-start.ts';
import { generateTlsCertificate } from '../../../infra/kube-emulator/self-signed-certificate.ts';
import { startTestDatabase, type TestDatabase } from '../../support/test-database.ts';
import { capturingLogger, loginToken } from '../../support/function-servers.ts';
import { loadSettings } from '../../../shared/base/config/settings.ts';

let fleet: Fleet;
let database: TestDatabase;
let folder: string;
let certificate: string;
const logger = capturingLogger();

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'platform-api-fleet-tls-'));
  database = await startTestDatabase();
  const served = await generateTlsCertificate('127.0.0.1');
  certificate = served.cert;
  const files = { TLS_CERT_FILE: join(folder, 'tls.crt'), TLS_KEY_FILE: join(folder, 'tls.key') };
  await Promise.all([writeFile(files.TLS_CERT_FILE, served.cert), writeFile(files.TLS_KEY_FILE, served.key)]);
  setDefaultCACertificates([...getCACertificates('default'), served.cert]);
  const env = { PORT: '0', DATABASE_URL: database.connectionString, LOG_LEVEL: 'warn', ...files };
  fleet = await startFleet(loadSettings(env), env, {
    startTimeoutMs: REPLICA_START_BOUND_MS,
    replicas: 1,
    dataDir: join(folder, 'data'),
    logger,
    host: '127.0.0.1',
  });
}, FLEET_START_BOUND_MS);

afterAll(async () => {
  await fleet?.close();
  await database?.destroy();
  await rm(folder, { recursive: true, force: true });
});

describe("The fleet's gateway serves HTTPS from the certificate and key given by TLS_CERT_FILE and TLS_KEY_FILE", () => {
  it("answers over HTTPS only, forwards a login to a replica and names the HTTPS gateway as the token's issuer", async () => {
    expect(fleet.url).toMatch(/^https:\/\//);
    const token = await loginToken(fleet.url);
    expect(decodeJwt(token).iss).toBe(`https://localhost:${fleet.port}`);
    await expect(fetch(`${fleet.url.replace('https:', 'http:')}/healthz`)).rejects.toThrow();
    for (const replica of [...fleet.replicas.values()].flat()) expect(replica.url).toMatch(/^http:\/\/127\.0\.0\.1:/);
  });

  it("logs the certificate's fingerprint at start-up", () => {
    expect(logger.lines.find((line) => line.includes('fleet listening'))).toContain(
      new X509Certificate(certificate).fingerprint256,
    );
  });
});
