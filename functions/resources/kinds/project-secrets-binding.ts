import type { ProjectSecretsAccess } from '../../../shared/base/config/project-secrets-access.ts';
import type { ClusterObjects } from '../../../shared/domain/resources/cluster-objects.ts';
import { ApiError } from '../../../shared/base/http/api-error.ts';

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
  await bindToApiServer(objects, access.clusterRole, access.serviceAccount, project);
}

/**
 * Binds the project-tokens ClusterRole to the API server in a Project's namespace, if it is not bound
 * there yet (a Project's first token, Projects created before tokens included), so it can create and
 * delete the tokens' ServiceAccounts and request their tokens there and nowhere else.
 */
export async function bindProjectTokens(
  objects: ClusterObjects,
  access: ProjectSecretsAccess | undefined,
  project: string,
): Promise<void> {
  if (!access?.tokensClusterRole) return;
  try {
    await bindToApiServer(objects, access.tokensClusterRole, access.serviceAccount, project);
  } catch (error) {
    if (!(error instanceof ApiError && error.reason === 'AlreadyExists')) throw error;
  }
}

/** A RoleBinding of `clusterRole`, named after it, to the API server's ServiceAccount in the Project's namespace. */
async function bindToApiServer(
  objects: ClusterObjects,
  clusterRole: string,
  serviceAccount: ProjectSecretsAccess['serviceAccount'],
  project: string,
): Promise<void> {
  const binding = {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'RoleBinding',
    metadata: { name: clusterRole, namespace: project, labels: { [`${objects.apiGroup}/project`]: project } },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: clusterRole },
    subjects: [{ kind: 'ServiceAccount', ...serviceAccount }],
  };
  await objects.send({
    method: 'POST',
    path: `/apis/${RBAC_GROUP}/v1/namespaces/${encodeURIComponent(project)}/rolebindings`,
    body: binding,
  });
}
