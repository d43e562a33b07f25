import type { AdminSettingsSource } from '../admin-settings-source.ts';
import { adminSettingsFromEnvironment, adminValuesFromEnvironment } from '../admin-settings-from-environment.ts';
import { ConfigError } from '../config-error.ts';
import { parseDurationSetting } from '../setting-values.ts';
import type { Environment, ServerConfig } from '../server-config.ts';
import type { Logger } from '../../logging/logger.ts';
import { followAdminSecret } from './followed-admin-settings-source.ts';
import { requireAllAdminKeys } from './required-admin-keys.ts';
import { mountedFolderSecret } from './mounted-folder-source.ts';

/**
 * How often each followed source is re-read when no watch event says so: the documented bound on
 * how long a rotated secret takes to be in force (docs/deployment.md, "Rotation").
 */
export const DEFAULT_POLL_INTERVAL_MS = { file: 5_000, kubernetes: 30_000, 'aws-secretsmanager': 30_000 } as const;
const MIN_POLL_INTERVAL_MS = 100;

/**
 * Opens the source ADMIN_SECRET_SOURCE names: unset (the four environment variables, or local
 * development mode), `env` (the environment, all four keys required), `file:<folder>`,
 * `kubernetes:<namespace>/<name>` or `aws-secretsmanager:<secret id>`. Throws ConfigError when the
 * source is malformed, unreadable, or lacks a key. The Kubernetes client and the AWS SDK are
 * imported only for their own source: loading either costs a cold start hundreds of milliseconds.
 */
export async function openAdminSettingsSource(env: Environment, config: ServerConfig, logger: Logger): Promise<AdminSettingsSource> {
  const spec = env.ADMIN_SECRET_SOURCE?.trim();
  if (spec === undefined) return adminSettingsFromEnvironment(env, config, logger);
  if (spec === 'env') {
    requireAllAdminKeys(adminValuesFromEnvironment(env), 'the environment (ADMIN_SECRET_SOURCE=env)');
    return adminSettingsFromEnvironment(env, config, logger);
  }
  const separator = spec.indexOf(':');
  const kind = spec.slice(0, separator);
  const location = spec.slice(separator + 1).trim();
  if (separator === -1 || location === '') throw malformed(spec);
  if (kind === 'file') {
    return followAdminSecret(mountedFolderSecret(location, pollInterval(env, 'file')), config, logger);
  }
  if (kind === 'kubernetes') {
    const [namespace, name, extra] = location.split('/');
    if (!namespace || !name || extra !== undefined) throw malformed(spec);
    const [{ KubeConfig }, { kubernetesSecret }] = await Promise.all([import('@kubernetes/client-node'), import('./kubernetes-secret-source.ts')]);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromDefault();
    return followAdminSecret(kubernetesSecret(kubeConfig, namespace, name, pollInterval(env, 'kubernetes')), config, logger);
  }
  if (kind === 'aws-secretsmanager') {
    const [{ SecretsManagerClient }, { awsSecretsManagerSecret }] = await Promise.all([import('@aws-sdk/client-secrets-manager'), import('./aws-secrets-manager-source.ts')]);
    return followAdminSecret(awsSecretsManagerSecret(new SecretsManagerClient({}), location, pollInterval(env, 'aws-secretsmanager')), config, logger);
  }
  throw malformed(spec);
}

function pollInterval(env: Environment, kind: keyof typeof DEFAULT_POLL_INTERVAL_MS): number {
  const text = env.ADMIN_SECRET_POLL_INTERVAL?.trim();
  if (!text) return DEFAULT_POLL_INTERVAL_MS[kind];
  return parseDurationSetting('ADMIN_SECRET_POLL_INTERVAL', text, MIN_POLL_INTERVAL_MS, `a Go duration of at least ${MIN_POLL_INTERVAL_MS}ms (e.g. 5s, 30s)`);
}

function malformed(spec: string): ConfigError {
  return new ConfigError('ADMIN_SECRET_SOURCE', `"${spec}" is not one of env, file:<folder>, kubernetes:<namespace>/<name>, aws-secretsmanager:<secret id>`);
}
