import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { openAdminSettingsSource } from '../../../shared/base/config/secret-sources/open-admin-settings-source.ts';
import { ConfigError } from '../../../shared/base/config/config-error.ts';
import type { AdminAccountSettings } from '../../../shared/base/config/admin-account-settings.ts';
import { OTHER_SIGNING_KEY, SIGNING_KEY, adminHash } from '../../support/admin-fixtures.ts';
import { capturingLogger, silentLogger, spawnFunctionProcess } from '../../support/function-servers.ts';
import { writeMountedSecret } from '../../support/mounted-secret-folder.ts';
import { startSecretsManagerEndpoint, type SecretsManagerEndpoint } from '../../support/secrets-manager-endpoint.ts';
import { loadSettings } from '../../../shared/base/config/settings.ts';

const HASH = adminHash();
const FULL_SECRET = {
  ADMIN_ACCOUNT_ENABLED: 'true',
  ADMIN_ACCOUNT_PASSWORD_HASH: HASH,
  ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: SIGNING_KEY,
  ADMIN_ACCOUNT_TOKEN_TTL: '2h',
};

async function open(env: Record<string, string>, logger = silentLogger) {
  return openAdminSettingsSource(
    loadSettings({ NODE_ENV: 'production', ADMIN_SECRET_POLL_INTERVAL: '100ms', ...env }),
    logger,
  );
}

async function configErrorOf(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

function nextChange(source: {
  onChange(listener: (settings: AdminAccountSettings) => void): () => void;
}): Promise<AdminAccountSettings> {
  return new Promise((resolve) => {
    const unsubscribe = source.onChange((settings) => {
      unsubscribe();
      resolve(settings);
    });
  });
}

let folder: string;
let endpoint: SecretsManagerEndpoint;
let aws: SecretsManagerClient;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'admin-secret-'));
  endpoint = await startSecretsManagerEndpoint();
  // The source builds its client from the SDK's own environment, as it does in a container.
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint.url,
    AWS_MAX_ATTEMPTS: '1',
  });
  aws = new SecretsManagerClient({});
  await aws.send(
    new CreateSecretCommand({
      Name: 'complete',
      SecretString: JSON.stringify({ ...FULL_SECRET, ADMIN_ACCOUNT_ENABLED: true }),
    }),
  );
  await aws.send(
    new CreateSecretCommand({
      Name: 'incomplete',
      SecretString: JSON.stringify({ ADMIN_ACCOUNT_ENABLED: 'true', ADMIN_ACCOUNT_TOKEN_TTL: '1h' }),
    }),
  );
  await aws.send(new CreateSecretCommand({ Name: 'not-json', SecretString: 'ADMIN_ACCOUNT_ENABLED=true' }));
});

afterAll(async () => {
  await endpoint.close();
  await rm(folder, { recursive: true, force: true });
});

describe('A source that cannot be read at start-up is a clear start-up error', () => {
  it('names a mounted folder that does not exist', async () => {
    const error = await configErrorOf(open({ ADMIN_SECRET_SOURCE: `file:${folder}/absent` }));
    expect(error.variable).toBe('ADMIN_SECRET_SOURCE');
    expect(error.message).toContain(`${folder}/absent`);
  });

  it("names an AWS secret that does not exist, with the service's error", async () => {
    const error = await configErrorOf(open({ ADMIN_SECRET_SOURCE: 'aws-secretsmanager:absent' }));
    expect(error.message).toMatch(/AWS Secrets Manager secret absent: ResourceNotFoundException/);
  });

  it('refuses an AWS secret that is not a JSON object', async () => {
    const error = await configErrorOf(open({ ADMIN_SECRET_SOURCE: 'aws-secretsmanager:not-json' }));
    expect(error.message).toContain('is not a JSON object');
  });

  it('refuses an unknown source and a bad poll interval', async () => {
    expect((await configErrorOf(open({ ADMIN_SECRET_SOURCE: 'vault:x' }))).variable).toBe('ADMIN_SECRET_SOURCE');
    expect((await configErrorOf(open({ ADMIN_SECRET_SOURCE: 'kubernetes:only-a-name' }))).variable).toBe(
      'ADMIN_SECRET_SOURCE',
    );
    expect(
      (await configErrorOf(open({ ADMIN_SECRET_SOURCE: `file:${folder}`, ADMIN_SECRET_POLL_INTERVAL: '5' }))).variable,
    ).toBe('ADMIN_SECRET_POLL_INTERVAL');
  });
});

describe('The named Secret must already contain all four keys: the server names any missing key at start-up and exits', () => {
  it('exits non-zero naming each key missing from the environment (api.secret.name given as env)', async () => {
    const started = spawnFunctionProcess({
      FUNCTION_TARGET: 'login',
      ADMIN_SECRET_SOURCE: 'env',
      ADMIN_ACCOUNT_ENABLED: 'true',
      ADMIN_ACCOUNT_PASSWORD_HASH: HASH,
    });
    await expect(started).rejects.toThrow(
      /exited with 1[\s\S]*ADMIN_ACCOUNT_TOKEN_SIGNING_KEY, ADMIN_ACCOUNT_TOKEN_TTL: missing from the environment/,
    );
  });

  it('names the key missing from a mounted folder', async () => {
    const { ADMIN_ACCOUNT_PASSWORD_HASH: _omitted, ...threeKeys } = FULL_SECRET;
    const incomplete = join(folder, 'incomplete');
    await writeMountedSecret(incomplete, threeKeys);
    const error = await configErrorOf(open({ ADMIN_SECRET_SOURCE: `file:${incomplete}` }));
    expect(error.variable).toBe('ADMIN_ACCOUNT_PASSWORD_HASH');
  });

  it('names the keys missing from an AWS secret', async () => {
    const error = await configErrorOf(open({ ADMIN_SECRET_SOURCE: 'aws-secretsmanager:incomplete' }));
    expect(error.variable).toBe('ADMIN_ACCOUNT_PASSWORD_HASH, ADMIN_ACCOUNT_TOKEN_SIGNING_KEY');
  });

  it('reads all four keys when they are there, JSON booleans included', async () => {
    const source = await open({ ADMIN_SECRET_SOURCE: 'aws-secretsmanager:complete' });
    expect(source.current()).toMatchObject({
      enabled: true,
      passwordHash: HASH,
      tokenTtlSeconds: 7200,
      signingKeyGenerated: false,
    });
    await source.close();
  });
});

describe('A rotated secret is in force at once; one that cannot be used leaves the settings in force', () => {
  it('replaces the settings whole when the mounted Secret changes, and keeps them when a key goes missing', async () => {
    const mounted = join(folder, 'rotated');
    await writeMountedSecret(mounted, FULL_SECRET);
    const logger = capturingLogger();
    const source = await open({ ADMIN_SECRET_SOURCE: `file:${mounted}` }, logger);
    const first = source.current();

    const changed = nextChange(source);
    await writeMountedSecret(mounted, {
      ...FULL_SECRET,
      ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: OTHER_SIGNING_KEY,
      ADMIN_ACCOUNT_ENABLED: 'false',
    });
    const rotated = await changed;
    expect(rotated.signingKeyId).not.toBe(first.signingKeyId);
    expect(rotated.enabled).toBe(false);
    expect(source.current()).toBe(rotated);

    const { ADMIN_ACCOUNT_TOKEN_TTL: _omitted, ...threeKeys } = FULL_SECRET;
    await writeMountedSecret(mounted, threeKeys);
    await expect
      .poll(() =>
        logger.lines.some(
          (line) => line.includes('changed to something unusable') && line.includes('ADMIN_ACCOUNT_TOKEN_TTL'),
        ),
      )
      .toBe(true);
    expect(source.current()).toBe(rotated);
    expect(logger.lines.join('\n')).not.toContain(OTHER_SIGNING_KEY);
    await source.close();
  });
});
