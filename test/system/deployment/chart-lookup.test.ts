import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findObject, helmTemplate, type KubeObject } from '../../support/helm.ts';
import { helmOwnership, startChartCluster, type ChartCluster } from '../../support/chart-cluster.ts';

const RELEASE = 'platform';
const NAMESPACE = 'platform-system';
let cluster: ChartCluster;

/**
 * `helm template --dry-run=server` against the emulator: lookup reads the cluster. OpenAPI
 * validation is off because the emulator does not serve the protobuf OpenAPI document helm asks for.
 */
function renderAgainstCluster(values: Record<string, unknown> = {}): Promise<KubeObject[]> {
  return helmTemplate(values, {
    release: RELEASE,
    namespace: NAMESPACE,
    args: ['--dry-run=server', '--disable-openapi-validation', '--kubeconfig', cluster.kubeConfigFile],
  });
}

const secretData = (objects: KubeObject[]) =>
  findObject(objects, 'Secret', `${RELEASE}-api`).data as Record<string, string>;
const checksum = (objects: KubeObject[]) => {
  const service = findObject(objects, 'Service', `${RELEASE}-login`) as KubeObject & {
    spec: { template: { metadata: { annotations: Record<string, string> } } };
  };
  return service.spec.template.metadata.annotations['checksum/admin-secret'];
};

async function storeSecret(name: string, data: Record<string, string>, owned: boolean): Promise<void> {
  await cluster.core.deleteNamespacedSecret({ name, namespace: NAMESPACE }).catch(() => undefined);
  await cluster.core.createNamespacedSecret({
    namespace: NAMESPACE,
    body: { metadata: { name, ...(owned ? helmOwnership(RELEASE, NAMESPACE) : {}) }, data },
  });
}

beforeAll(async () => {
  cluster = await startChartCluster(NAMESPACE);
});

afterAll(async () => {
  await cluster?.close();
});

describe('When empty on a fresh install, the hash and key are generated and kept stable across upgrades (lookup)', () => {
  it('reuses on upgrade what the fresh install stored, so the checksum and every token stay valid', async () => {
    const install = await renderAgainstCluster();
    await storeSecret(`${RELEASE}-api`, secretData(install), true);
    const upgrade = await renderAgainstCluster({ functions: { defaults: { maxScale: 4 } } });
    expect(secretData(upgrade)).toEqual(secretData(install));
    expect(checksum(upgrade)).toBe(checksum(install));
  });

  it('still lets given values win over what the cluster holds', async () => {
    // The cluster holds a stored Secret whatever ran before: the fresh install's, as helm keeps it.
    const install = await renderAgainstCluster();
    await storeSecret(`${RELEASE}-api`, secretData(install), true);
    expect(Buffer.from(secretData(install).ADMIN_ACCOUNT_TOKEN_SIGNING_KEY!, 'base64').toString()).not.toBe(
      'n'.repeat(64),
    );
    const upgrade = await renderAgainstCluster({
      api: { adminAccount: { tokenSigningKey: 'n'.repeat(64), tokenTTL: '2h' } },
    });
    const data = secretData(upgrade);
    expect(Buffer.from(data.ADMIN_ACCOUNT_TOKEN_SIGNING_KEY!, 'base64').toString()).toBe('n'.repeat(64));
    expect(Buffer.from(data.ADMIN_ACCOUNT_TOKEN_TTL!, 'base64').toString()).toBe('2h');
  });
});

describe("api.secret.name: the checksum follows the named Secret's contents as the cluster holds them", () => {
  it('changes the checksum when the named Secret changes, and keeps it otherwise', async () => {
    const values = { api: { secret: { name: 'existing-admin' } } };
    const base64 = (text: string) => Buffer.from(text).toString('base64');
    await storeSecret('existing-admin', { ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: base64('a'.repeat(64)) }, false);
    const first = await renderAgainstCluster(values);
    const again = await renderAgainstCluster(values);
    await storeSecret('existing-admin', { ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: base64('b'.repeat(64)) }, false);
    const rotated = await renderAgainstCluster(values);
    expect(first.some((object) => object.kind === 'Secret')).toBe(false);
    expect(checksum(again)).toBe(checksum(first));
    expect(checksum(rotated)).not.toBe(checksum(first));
  });
});
