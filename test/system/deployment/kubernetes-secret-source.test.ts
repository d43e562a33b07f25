import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RbacAuthorizationV1Api, type V1Role, type V1RoleBinding } from '@kubernetes/client-node';
import { openAdminSettingsSource } from '../../../shared/base/config/secret-sources/open-admin-settings-source.ts';
import { ConfigError } from '../../../shared/base/config/config-error.ts';
import type { AdminAccountSettings } from '../../../shared/base/config/admin-account-settings.ts';
import type { AdminSettingsSource } from '../../../shared/base/config/admin-settings-source.ts';
import { OTHER_SIGNING_KEY, SIGNING_KEY, adminHash } from '../../support/admin-fixtures.ts';
import { silentLogger } from '../../support/function-servers.ts';
import { findObject, helmTemplate } from '../../support/helm.ts';
import { startChartCluster, type ChartCluster } from '../../support/chart-cluster.ts';
import { loadSettings } from '../../../shared/base/config/settings.ts';

const NAMESPACE = 'platform-system';
const SECRET = 'platform-api';
const SERVICE_ACCOUNT_TOKEN = 'platform-api-service-account-token';
const ADMIN_SECRET = {
  ADMIN_ACCOUNT_ENABLED: 'true',
  ADMIN_ACCOUNT_PASSWORD_HASH: adminHash(),
  ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: SIGNING_KEY,
  ADMIN_ACCOUNT_TOKEN_TTL: '1h',
};
const ENV = { NODE_ENV: 'production', ADMIN_SECRET_SOURCE: `kubernetes:${NAMESPACE}/${SECRET}` };
/** ADMIN_SECRET_POLL_INTERVAL in the watch tests: no re-read happens while they run. */
const HOURLY_REREAD_MS = 60 * 60_000;

let cluster: ChartCluster;
let folder: string;
let kubeConfigFile: string;

async function putSecret(values: Record<string, string>): Promise<void> {
  const body = { metadata: { name: SECRET }, stringData: values };
  await cluster.core
    .replaceNamespacedSecret({ name: SECRET, namespace: NAMESPACE, body })
    .catch(() => cluster.core.createNamespacedSecret({ namespace: NAMESPACE, body }));
}

async function open(env: Record<string, string> = {}) {
  return openAdminSettingsSource(loadSettings({ ...ENV, ...env }), silentLogger);
}

beforeAll(async () => {
  cluster = await startChartCluster(NAMESPACE);
  // The source runs as the chart's API server ServiceAccount, allowed only what the chart's Role grants.
  const chart = await helmTemplate({ api: { secret: { source: 'kubernetes' } } }, { namespace: NAMESPACE });
  const rbac = cluster.emulator.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace: NAMESPACE,
    body: findObject(chart, 'Role', 'platform-api-secret') as unknown as V1Role,
  });
  await rbac.createNamespacedRoleBinding({
    namespace: NAMESPACE,
    body: findObject(chart, 'RoleBinding', 'platform-api-secret') as unknown as V1RoleBinding,
  });
  cluster.emulator.registerToken(SERVICE_ACCOUNT_TOKEN, {
    username: `system:serviceaccount:${NAMESPACE}:platform-api`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${NAMESPACE}`, 'system:authenticated'],
  });
  folder = await mkdtemp(join(tmpdir(), 'kubeconfig-'));
  kubeConfigFile = join(folder, 'kubeconfig');
  process.env.KUBECONFIG = kubeConfigFile;
  await writeFile(kubeConfigFile, cluster.emulator.kubeConfigYaml(SERVICE_ACCOUNT_TOKEN), { mode: 0o600 });
});

afterAll(async () => {
  await cluster?.close();
  await rm(folder, { recursive: true, force: true });
});

describe('The Kubernetes API as the external secret (ADMIN_SECRET_SOURCE=kubernetes:<namespace>/<name>)', () => {
  it('is a clear start-up error when the Secret cannot be read', async () => {
    const error = await open({ ADMIN_SECRET_SOURCE: `kubernetes:${NAMESPACE}/not-there` }).catch(
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(`the Kubernetes Secret ${NAMESPACE}/not-there`);
  });

  it('names every key the Secret lacks', async () => {
    await putSecret({ ADMIN_ACCOUNT_ENABLED: 'true', ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: SIGNING_KEY });
    const error = await open().catch((reason: unknown) => reason);
    expect((error as ConfigError).variable).toBe('ADMIN_ACCOUNT_PASSWORD_HASH, ADMIN_ACCOUNT_TOKEN_TTL');
  });

  it("puts a rotated key in force within the bound, with only the chart's RBAC (get, list and watch of that one Secret)", async () => {
    await putSecret(ADMIN_SECRET);
    // With an hourly re-read, a rotation seen at all within the test's time came through the watch.
    const elapsed = await rotationDelay(await open({ ADMIN_SECRET_POLL_INTERVAL: '1h' }));
    expect(elapsed).toBeLessThan(HOURLY_REREAD_MS);
  });

  it('sees the rotation through the watch, well before any re-read', async () => {
    await putSecret(ADMIN_SECRET);
    await writeFile(kubeConfigFile, cluster.emulator.kubeConfigYaml(), { mode: 0o600 });
    try {
      const elapsed = await rotationDelay(await open({ ADMIN_SECRET_POLL_INTERVAL: '1h' }));
      expect(elapsed).toBeLessThan(HOURLY_REREAD_MS);
    } finally {
      await writeFile(kubeConfigFile, cluster.emulator.kubeConfigYaml(SERVICE_ACCOUNT_TOKEN), { mode: 0o600 });
    }
  });
});

/** Rotates the signing key in the Secret and measures how long until the source has the new settings in force. */
async function rotationDelay(source: AdminSettingsSource): Promise<number> {
  try {
    const first = source.current();
    const changed = new Promise<AdminAccountSettings>((resolve) => source.onChange(resolve));
    const rotatedAt = Date.now();
    await putSecret({ ...ADMIN_SECRET, ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: OTHER_SIGNING_KEY });
    const rotated = await changed;
    const elapsed = Date.now() - rotatedAt;
    expect(rotated.signingKeyId).not.toBe(first.signingKeyId);
    expect(source.current()).toBe(rotated);
    return elapsed;
  } finally {
    await source.close();
  }
}
