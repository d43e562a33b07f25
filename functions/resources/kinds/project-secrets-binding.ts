import type { ProjectSecretsAccess } from '../../../shared/base/config/project-secrets-access.ts';
import type { ClusterObjects } from '../../../shared/domain/resources/cluster-objects.ts';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/**
 * Binds the project-secrets ClusterRole to the API server's own ServiceAccount in a Project's
 * namespace, so it can write the VariableSets' Secrets there and nowhere else. The RoleBinding is
 * named after the ClusterRole (one per release) and goes away with the namespace.
 */
export async function bindProjectSecrets(
  objects: ClusterObjects,
  access: ProjectSecretsAccess,
  project: string,
): Promise<void> {
  const binding = {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'RoleBinding',
    metadata: { name: access.clusterRole, namespace: project, labels: { [`${objects.apiGroup}/project`]: project } },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: access.clusterRole },
    subjects: [{ kind: 'ServiceAccount', ...access.serviceAccount }],
  };
  await objects.send({
    method: 'POST',
    path: `/apis/${RBAC_GROUP}/v1/namespaces/${encodeURIComponent(project)}/rolebindings`,
    body: binding,
  });
}
