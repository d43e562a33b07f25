// The API server as the chart deploys it: its own ServiceAccount with exactly the chart's
// cluster-wide RBAC (ClusterRoles and their bindings), and the environment the chart gives the
// resources function. Suites that talk to the cluster through the server run under it, so a
// request the chart would not allow fails the test instead of passing as cluster-admin.
import {
  RbacAuthorizationV1Api,
  type KubeConfig,
  type V1ClusterRole,
  type V1ClusterRoleBinding,
} from '@kubernetes/client-node';
import { findObject, helmTemplate, type KubeObject } from './helm.ts';
import { TEST_NAMESPACE, type IdentityCluster } from './identity-cluster.ts';

/** The API server's ServiceAccount, as the chart names it for the release in TEST_NAMESPACE. */
export const API_SERVICE_ACCOUNT = 'platform-api';

/** The chart's settings the resources function reads about its own RBAC. */
const CHART_RBAC_SETTINGS = [
  'PROJECT_SECRETS_CLUSTER_ROLE',
  'PROJECT_TOKENS_CLUSTER_ROLE',
  'API_SERVICE_ACCOUNT',
  'POD_NAMESPACE',
];

export interface ChartRbac {
  /** The cluster as the API server's ServiceAccount sees it. */
  kubeConfig: KubeConfig;
  /** The chart's RBAC-related environment of the resources function. */
  env: Record<string, string>;
}

type ChartService = KubeObject & {
  spec: {
    template: {
      spec: {
        containers: Array<{
          env: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
        }>;
      };
    };
  };
};

/** The environment the chart gives the resources function, with the downward API's namespace resolved. */
export function chartEnvironment(objects: KubeObject[], names: string[]): Record<string, string> {
  const service = findObject(objects, 'Service', 'platform-resources') as ChartService;
  const variables = service.spec.template.spec.containers[0]!.env.filter((variable) => names.includes(variable.name));
  return Object.fromEntries(
    variables.map((variable) => [
      variable.name,
      variable.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace' ? TEST_NAMESPACE : variable.value!,
    ]),
  );
}

/** Loads the chart's ClusterRoles and ClusterRoleBindings, creates the API server's ServiceAccount and connects as it. */
export async function applyChartRbac(cluster: IdentityCluster): Promise<ChartRbac> {
  const chart = await helmTemplate({}, { namespace: TEST_NAMESPACE });
  const rbac = cluster.emulator.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
  for (const role of chart.filter((object) => object.kind === 'ClusterRole'))
    await rbac.createClusterRole({ body: role as unknown as V1ClusterRole });
  for (const binding of chart.filter((object) => object.kind === 'ClusterRoleBinding'))
    await rbac.createClusterRoleBinding({ body: binding as unknown as V1ClusterRoleBinding });
  await cluster.createServiceAccount(API_SERVICE_ACCOUNT);
  const env = chartEnvironment(chart, CHART_RBAC_SETTINGS);
  const missing = CHART_RBAC_SETTINGS.filter((name) => !(name in env));
  if (missing.length > 0) throw new Error(`the chart no longer sets ${missing.join(', ')} on the resources function`);
  return { kubeConfig: cluster.emulator.kubeConfig(await cluster.mintToken(API_SERVICE_ACCOUNT, 24 * 3600)), env };
}
