import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateSecretCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ADMIN_PASSWORD, OTHER_SIGNING_KEY, SIGNING_KEY, adminHash } from '../support/admin-fixtures.ts';
import { getWithToken, loginToken, spawnFunctionProcess, type FunctionProcess } from '../support/function-servers.ts';
import { writeMountedSecret } from '../support/mounted-secret-folder.ts';
import { startSecretsManagerEndpoint } from '../support/secrets-manager-endpoint.ts';

// No function owns this path: each answers 404 to a token it accepts and 401 to one it rejects
// (fail closed), whatever its own routes depend on.
const UNROUTED = '/token-acceptance-check';
const POLL_INTERVAL_MS = 1000;
// The documented bound is one poll interval plus one read of the secret. The test waits for the
// rejection itself with a generous upper bound (a shared, loaded machine delays timers and
// process start-up many times over); the bound's exactness is the poll loop's, not the test's.
const REJECTION_WAIT_MS = 20 * POLL_INTERVAL_MS;
const SHARED_ENV = {
  API_BASE_URL: 'https://platform-api.test',
  ADMIN_SECRET_POLL_INTERVAL: `${POLL_INTERVAL_MS}ms`,
  LOG_LEVEL: 'warn',
};

function secretValues(signingKey: string): Record<string, string> {
  return {
    ADMIN_ACCOUNT_ENABLED: 'true',
    ADMIN_ACCOUNT_PASSWORD_HASH: adminHash(),
    ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: signingKey,
    ADMIN_ACCOUNT_TOKEN_TTL: '1h',
  };
}

/** Whether the function authenticates the token: 404 for the unrouted path when it does, 401 when it does not. */
async function accepts(process: FunctionProcess, token: string): Promise<boolean> {
  const response = await getWithToken(process.url, UNROUTED, token);
  await response.body?.cancel();
  expect([401, 404]).toContain(response.status);
  return response.status === 404;
}

/** Starts one login and two resources functions that all follow the same external secret. */
async function startThreeFunctions(env: Record<string, string>): Promise<FunctionProcess[]> {
  return Promise.all(
    ['login', 'resources', 'resources'].map((target) =>
      spawnFunctionProcess({ ...SHARED_ENV, ...env, FUNCTION_TARGET: target }),
    ),
  );
}

/**
 * The scenario of the spec's rule: a token from one instance is accepted by the others; after
 * the signing key is rotated, within the bound, every instance rejects it; a new login works
 * and its token is accepted everywhere.
 */
async function expectRotationInvalidatesEverywhere(
  processes: FunctionProcess[],
  rotate: () => Promise<void>,
): Promise<void> {
  const [loginFunction] = processes;
  const oldToken = await loginToken(loginFunction!.url, ADMIN_PASSWORD);
  for (const process of processes) expect(await accepts(process, oldToken)).toBe(true);

  const rotatedAt = Date.now();
  await rotate();
  await Promise.all(processes.map((process) => waitUntilRejected(process, oldToken, rotatedAt)));

  const newToken = await loginToken(loginFunction!.url, ADMIN_PASSWORD);
  for (const process of processes) {
    expect(await accepts(process, newToken)).toBe(true);
    expect(await accepts(process, oldToken)).toBe(false);
  }
}

async function waitUntilRejected(process: FunctionProcess, token: string, since: number): Promise<void> {
  while (await accepts(process, token)) {
    if (Date.now() - since > REJECTION_WAIT_MS)
      throw new Error(`old token still accepted by ${process.url}: ${process.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('Signing key changed: every token signed with the old key is invalid, on every instance, within the documented bound', {
  timeout: 90_000,
}, () => {
  let processes: FunctionProcess[] = [];
  const cleanups: Array<() => Promise<unknown>> = [];

  afterEach(async () => {
    await Promise.all(processes.map((process) => process.stop()));
    processes = [];
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('with a mounted Secret folder (ADMIN_SECRET_SOURCE=file:<folder>)', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'admin-secret-'));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    await writeMountedSecret(folder, secretValues(SIGNING_KEY));
    processes = await startThreeFunctions({ ADMIN_SECRET_SOURCE: `file:${folder}` });
    await expectRotationInvalidatesEverywhere(processes, () =>
      writeMountedSecret(folder, secretValues(OTHER_SIGNING_KEY)),
    );
  });

  it('with AWS Secrets Manager through the real SDK (ADMIN_SECRET_SOURCE=aws-secretsmanager:<id>)', async () => {
    const endpoint = await startSecretsManagerEndpoint();
    cleanups.push(() => endpoint.close());
    const awsEnv = {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint.url,
    };
    const client = new SecretsManagerClient({
      region: awsEnv.AWS_REGION,
      endpoint: endpoint.url,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    await client.send(
      new CreateSecretCommand({ Name: 'platform-api/admin', SecretString: JSON.stringify(secretValues(SIGNING_KEY)) }),
    );
    processes = await startThreeFunctions({ ...awsEnv, ADMIN_SECRET_SOURCE: 'aws-secretsmanager:platform-api/admin' });
    const callsBefore = endpoint.getSecretValueCalls;
    await expectRotationInvalidatesEverywhere(processes, async () => {
      await client.send(
        new PutSecretValueCommand({
          SecretId: 'platform-api/admin',
          SecretString: JSON.stringify(secretValues(OTHER_SIGNING_KEY)),
        }),
      );
    });
    // The processes reached the endpoint through the SDK's endpoint variable, by polling.
    expect(endpoint.getSecretValueCalls).toBeGreaterThan(callsBefore);
  });
});
