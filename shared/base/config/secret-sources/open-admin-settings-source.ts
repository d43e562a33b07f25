import type { AdminSettingsSource } from '../admin-settings-source.ts';
import { adminSettingsFromEnvironment } from '../admin-settings-from-environment.ts';
import type { Settings } from '../settings.ts';
import type { Logger } from '../../logging/logger.ts';
import { followAdminSecret } from './followed-admin-settings-source.ts';
import { requireAllAdminKeys } from './required-admin-keys.ts';
import { mountedFolderSecret } from './mounted-folder-source.ts';
import type { SecretReading } from '../../metrics/metrics.ts';

/**
 * Opens the source ADMIN_SECRET_SOURCE names: unset (the four environment variables, or local
 * development mode), `env` (the environment, all four keys required), `file:<folder>`,
 * `kubernetes:<namespace>/<name>` or `aws-secretsmanager:<secret id>`. Throws ConfigError when the
 * source is unreadable or lacks a key. The Kubernetes client and the AWS SDK are imported only
 * for their own source: loading either costs a cold start hundreds of milliseconds.
 */
export async function openAdminSettingsSource(
  settings: Pick<Settings, 'server' | 'adminSecret' | 'cluster'>,
  logger: Logger,
  onReading?: (result: SecretReading) => void,
): Promise<AdminSettingsSource> {
  const { server: config, adminSecret } = settings;
  const source = adminSecret.source;
  if (source.kind === 'environment') {
    if (source.allKeysRequired)
      requireAllAdminKeys(adminSecret.environmentValues, 'the environment (ADMIN_SECRET_SOURCE=env)');
    return adminSettingsFromEnvironment(adminSecret.environmentValues, config, logger);
  }
  if (source.kind === 'file') {
    return followAdminSecret(mountedFolderSecret(source.folder, source.pollIntervalMs), config, logger, onReading);
  }
  if (source.kind === 'kubernetes') {
    const [{ KubeConfig }, { kubeConfigFromFiles }, { kubernetesSecret }] = await Promise.all([
      import('@kubernetes/client-node'),
      import('../kubeconfig-files.ts'),
      import('./kubernetes-secret-source.ts'),
    ]);
    const { kubeconfig } = settings.cluster;
    // Without KUBECONFIG, the client's own defaults: ~/.kube/config, else the in-cluster configuration.
    const kubeConfig = kubeconfig === undefined ? new KubeConfig() : kubeConfigFromFiles(kubeconfig);
    if (kubeconfig === undefined) kubeConfig.loadFromDefault();
    return followAdminSecret(
      kubernetesSecret(kubeConfig, source.namespace, source.name, source.pollIntervalMs),
      config,
      logger,
      onReading,
    );
  }
  const [{ SecretsManagerClient }, { awsSecretsManagerSecret }] = await Promise.all([
    import('@aws-sdk/client-secrets-manager'),
    import('./aws-secrets-manager-source.ts'),
  ]);
  return followAdminSecret(
    awsSecretsManagerSecret(new SecretsManagerClient({}), source.secretId, source.pollIntervalMs),
    config,
    logger,
    onReading,
  );
}
