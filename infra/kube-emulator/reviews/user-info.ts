// The authenticated user as Kubernetes describes it (k8s.io/apiserver/pkg/authentication/user).

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** The group every authenticated user is in. */
export const AUTHENTICATED_GROUP = 'system:authenticated';

/** The group whose members bypass authorization, as on a real API server. */
export const MASTERS_GROUP = 'system:masters';

/** The username of a ServiceAccount: `system:serviceaccount:<namespace>:<name>`. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** The user a ServiceAccount token authenticates as, with the groups the API server adds. */
export function serviceAccountUser(namespace: string, name: string, uid: string): UserInfo {
  return {
    username: serviceAccountUsername(namespace, name),
    uid,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, AUTHENTICATED_GROUP],
  };
}
