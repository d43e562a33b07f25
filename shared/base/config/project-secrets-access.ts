import { ConfigError } from './config-error.ts';
import type { Environment } from './environment.ts';
import { settingReader } from './setting-values.ts';

/** A ClusterRole's name as the server puts it in a RoleBinding's roleRef (`:` allowed, as `system:…`). */
const CLUSTER_ROLE_NAME = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9.:]*[a-z0-9])?$/;

/**
 * How the API server gets write access to the VariableSets' Secrets in each Project's namespace:
 * with every Project it creates, it binds `clusterRole` to its own ServiceAccount there. The
 * chart sets these; without them (local mode, a cluster-admin kubeconfig) no binding is made.
 */
export interface ProjectSecretsAccess {
  /** PROJECT_SECRETS_CLUSTER_ROLE: the ClusterRole with the Secret verbs. */
  clusterRole: string;
  /**
   * PROJECT_TOKENS_CLUSTER_ROLE: the ClusterRole with what Project tokens need (their ServiceAccounts and
   * TokenRequests), bound to the server in a Project's namespace with its first token (docs/tokens.md).
   */
  tokensClusterRole?: string;
  /** API_SERVICE_ACCOUNT in POD_NAMESPACE: the API server's own identity. */
  serviceAccount: { namespace: string; name: string };
}

/**
 * Reads PROJECT_SECRETS_CLUSTER_ROLE, API_SERVICE_ACCOUNT and POD_NAMESPACE (undefined when the first is
 * unset), and PROJECT_TOKENS_CLUSTER_ROLE beside them.
 */
export function loadProjectSecretsAccess(env: Environment): ProjectSecretsAccess | undefined {
  const setting = settingReader(env);
  const clusterRole = setting.text('PROJECT_SECRETS_CLUSTER_ROLE');
  const tokensClusterRole = setting.text('PROJECT_TOKENS_CLUSTER_ROLE');
  if (tokensClusterRole !== undefined && !CLUSTER_ROLE_NAME.test(tokensClusterRole))
    throw new ConfigError(
      'PROJECT_TOKENS_CLUSTER_ROLE',
      'is not a ClusterRole name (lower-case letters, digits, "-", "." and ":", at most 253 characters)',
    );
  if (!clusterRole) {
    // Without the server's own identity there is nothing to bind it to: set alone it would be ignored.
    if (tokensClusterRole)
      throw new ConfigError(
        'PROJECT_TOKENS_CLUSTER_ROLE',
        'is set without PROJECT_SECRETS_CLUSTER_ROLE; set both, or neither',
      );
    return undefined;
  }
  const required = (variable: string) => {
    const value = setting.text(variable);
    if (!value)
      throw new ConfigError(
        variable,
        'is required with PROJECT_SECRETS_CLUSTER_ROLE (the API server binds that ClusterRole to its own ServiceAccount)',
      );
    return value;
  };
  return {
    clusterRole,
    ...(tokensClusterRole ? { tokensClusterRole } : {}),
    serviceAccount: { name: required('API_SERVICE_ACCOUNT'), namespace: required('POD_NAMESPACE') },
  };
}
