// The API server under exactly the chart's cluster-wide RBAC: Secrets only in Project namespaces,
// through the RoleBinding it creates with each Project (the project-secrets ClusterRole, bound to
// its own ServiceAccount), never cluster-wide.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type { RunningServer } from '../../../knative/node-http/running-server.ts';
import { installPlatformCrds } from '../../../shared/domain/resources/platform-crds.ts';
import { ADMIN_PASSWORD, adminEnv } from '../../support/admin-fixtures.ts';
import { loginToken, startTestGateway } from '../../support/function-servers.ts';
import { API_SERVICE_ACCOUNT, applyChartRbac } from '../../support/chart-rbac.ts';
import { startIdentityCluster, TEST_NAMESPACE, type IdentityCluster } from '../../support/identity-cluster.ts';
import { API, GROUP, expectStatus, projectObject, send } from '../../support/platform-fixture.ts';

let cluster: IdentityCluster;
let gateway: RunningServer;
let admin: string;
let serverCore: CoreV1Api;
let clusterAdminCore: CoreV1Api;

function variableSet(name: string): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/v1alpha1`,
    kind: 'VariableSet',
    metadata: { name },
    spec: { variables: [{ name: 'db_password', sensitive: true, value: 's3cret' }] },
  };
}

beforeAll(async () => {
  cluster = await startIdentityCluster();
  await installPlatformCrds(cluster.emulator.kubeConfig(), GROUP);
  const chartRbac = await applyChartRbac(cluster);
  serverCore = chartRbac.kubeConfig.makeApiClient(CoreV1Api);
  clusterAdminCore = cluster.emulator.kubeConfig().makeApiClient(CoreV1Api);
  gateway = await startTestGateway(adminEnv({ API_GROUP: GROUP, ...chartRbac.env }), {
    kubeConfig: chartRbac.kubeConfig,
  });
  admin = await loginToken(gateway.url, ADMIN_PASSWORD);
});

afterAll(async () => {
  await gateway?.close();
  await cluster?.close();
});

describe("Sensitive VariableSet values with only the chart's RBAC: Secrets in Project namespaces only", () => {
  // The Project the first two tests read, created by the API server whatever order they run in.
  beforeAll(async () => {
    await send(gateway.url, admin, 'POST', `${API}/projects`, projectObject('payments')).then(expectStatus(201));
  });

  it("binds the project-secrets ClusterRole to the API server's ServiceAccount in a new Project's namespace", async () => {
    const rbac = cluster.emulator.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
    const binding = await rbac.readNamespacedRoleBinding({ namespace: 'payments', name: 'platform-project-secrets' });
    expect(binding.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'platform-project-secrets',
    });
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: API_SERVICE_ACCOUNT, namespace: TEST_NAMESPACE },
    ]);
  });

  it("writes a sensitive value into the Secret variableset-<name> of the Project's namespace", async () => {
    await send(gateway.url, admin, 'POST', `${API}/namespaces/payments/variablesets`, variableSet('database')).then(
      expectStatus(201),
    );
    const secret = await clusterAdminCore.readNamespacedSecret({ namespace: 'payments', name: 'variableset-database' });
    expect(Buffer.from(secret.data!.db_password!, 'base64').toString('utf8')).toBe('s3cret');
  });

  it("cannot write Secrets in a namespace that is not a Project's, its own included", async () => {
    await clusterAdminCore.createNamespace({ body: { metadata: { name: 'unrelated' } } });
    for (const namespace of ['unrelated', TEST_NAMESPACE]) {
      const refused = await serverCore
        .createNamespacedSecret({ namespace, body: { metadata: { name: 'smuggled' }, stringData: { key: 'value' } } })
        .catch((error: { code?: number }) => error);
      expect((refused as { code?: number }).code).toBe(403);
    }
  });

  it('has no Secret access in a Project namespace without the binding: the write answers 503 and leaves no VariableSet', async () => {
    await send(gateway.url, admin, 'POST', `${API}/projects`, projectObject('unbound')).then(expectStatus(201));
    await cluster.emulator
      .kubeConfig()
      .makeApiClient(RbacAuthorizationV1Api)
      .deleteNamespacedRoleBinding({ namespace: 'unbound', name: 'platform-project-secrets' });
    await send(gateway.url, admin, 'POST', `${API}/namespaces/unbound/variablesets`, variableSet('database')).then(
      expectStatus(503),
    );
    await send(gateway.url, admin, 'GET', `${API}/namespaces/unbound/variablesets/database`).then(expectStatus(404));
  });
});
