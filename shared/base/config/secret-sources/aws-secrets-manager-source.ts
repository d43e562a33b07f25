import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ADMIN_SETTING_KEYS, type AdminSettingValues } from '../admin-account-settings.ts';
import type { FollowedSecret } from './followed-admin-settings-source.ts';

/**
 * An AWS Secrets Manager secret whose SecretString is a JSON object holding the four keys.
 * Secrets Manager has no change notification a process can subscribe to, so it is polled every
 * `pollIntervalMs`; the endpoint, region and credentials are the SDK's own (AWS_REGION,
 * AWS_ENDPOINT_URL_SECRETS_MANAGER or AWS_ENDPOINT_URL, the default credential chain).
 */
export function awsSecretsManagerSecret(
  client: SecretsManagerClient,
  secretId: string,
  pollIntervalMs: number,
): FollowedSecret {
  const description = `the AWS Secrets Manager secret ${secretId}`;
  return {
    description,
    async read() {
      const answer = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
      if (answer.SecretString === undefined)
        throw new Error(`${description} has no SecretString (binary secrets are not supported)`);
      return adminValuesFromJson(answer.SecretString, description);
    },
    follow(changed) {
      const poll = setInterval(changed, pollIntervalMs);
      poll.unref();
      return () => clearInterval(poll);
    },
  };
}

// Values may be JSON strings, or booleans for ADMIN_ACCOUNT_ENABLED as people tend to write them.
function adminValuesFromJson(text: string, description: string): AdminSettingValues {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${description} is not a JSON object`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(`${description} is not a JSON object`);
  const values: AdminSettingValues = {};
  for (const key of ADMIN_SETTING_KEYS) {
    const value = (parsed as Record<string, unknown>)[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' && typeof value !== 'boolean')
      throw new Error(`${description}: ${key} must be a string`);
    values[key] = String(value);
  }
  return values;
}
