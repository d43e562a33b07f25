import { ApiError } from '../../base/http/api-error.ts';
import { apiError } from '../../base/http/error-catalogue.ts';
import type { Principal } from '../../auth/principal.ts';
import type { Authorizer, ResourceAttributes } from '../../authz/authorizer.ts';
import type { ClusterObjects } from '../resources/cluster-objects.ts';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** What a token may do: a Role in the Project's namespace, or a ClusterRole bound there only. */
export interface TokenRole {
  kind: 'Role' | 'ClusterRole';
  name: string;
}

interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs?: string[];
  nonResourceURLs?: string[];
}

/**
 * The most permissions one check looks at before it asks the caller for `bind` instead: each is a
 * SubjectAccessReview (cached), and a role of wildcards is one review per rule, not per resource.
 */
export const MAX_PERMISSIONS_CHECKED = 256;

/** How the role reads in the list and the database: `Role/<name>` or `ClusterRole/<name>`. */
export function describeRole(role: TokenRole): string {
  return `${role.kind}/${role.name}`;
}

/** The role's path in the cluster, in the Project's namespace for a Role. */
export function rolePath(role: TokenRole, namespace: string): string {
  const name = encodeURIComponent(role.name);
  return role.kind === 'Role'
    ? `/apis/${RBAC_GROUP}/v1/namespaces/${encodeURIComponent(namespace)}/roles/${name}`
    : `/apis/${RBAC_GROUP}/v1/clusterroles/${name}`;
}

/** The role's rules, read with the server's own credentials; 404 `TokenRoleNotFound` when it does not exist. */
export async function readRoleRules(
  objects: ClusterObjects,
  role: TokenRole,
  namespace: string,
  signal?: AbortSignal,
): Promise<PolicyRule[]> {
  const found = await objects.find<{ rules?: PolicyRule[] }>(rolePath(role, namespace), signal);
  if (!found)
    throw apiError(
      'TokenRoleNotFound',
      role.kind === 'Role'
        ? `role "${role.name}" not found in project "${namespace}"`
        : `clusterrole "${role.name}" not found`,
    );
  return found.rules ?? [];
}

/**
 * No escalation (Kubernetes' rule for RoleBindings): the caller may hand a token the role only if it
 * may `bind` that role, or holds every permission the role grants in the Project's namespace itself.
 * Each permission is asked of the authorizer (SubjectAccessReview, cached), so what counts is exactly
 * what the cluster's RBAC grants the caller; the admin bypasses, as everywhere. 403 naming what is missing.
 */
export async function assertMayGrant(
  authorizer: Authorizer,
  principal: Principal,
  role: TokenRole,
  rules: PolicyRule[],
  namespace: string,
): Promise<void> {
  const bind: ResourceAttributes = {
    verb: 'bind',
    group: RBAC_GROUP,
    resource: role.kind === 'Role' ? 'roles' : 'clusterroles',
    namespace,
    name: role.name,
  };
  if (await allowed(authorizer, principal, bind)) return;
  const permissions = grantedInNamespace(rules, namespace);
  const refuse = (why: string) =>
    apiError(
      'Forbidden',
      `a token may not be given ${describeRole(role)}: ${why}; hold every permission of the role in project "${namespace}", or bind on it`,
    );
  if (permissions.length > MAX_PERMISSIONS_CHECKED)
    throw refuse(`it grants more than ${MAX_PERMISSIONS_CHECKED} permissions to check one by one`);
  for (const permission of permissions) {
    if (!(await allowed(authorizer, principal, permission)))
      throw refuse(`the caller may not ${permission.verb} ${describePermission(permission)}`);
  }
}

/** The role a list entry names (`Role/ci`), as it was written by describeRole. */
export function parseRole(described: string): TokenRole {
  const [kind, ...name] = described.split('/');
  return { kind: kind === 'ClusterRole' ? 'ClusterRole' : 'Role', name: name.join('/') };
}

/**
 * Issue 46, item 3: a token creates tokens only when its own role says so explicitly, a rule naming
 * `tokens` of the platform's group with `create` (or every verb); what wildcards grant, in its role or
 * in any other binding of its ServiceAccount, does not count. 403 naming the token and its role.
 */
export async function assertTokenMayMint(
  objects: ClusterObjects,
  minting: { project: string; name: string },
  role: TokenRole,
  signal?: AbortSignal,
): Promise<void> {
  // A role deleted since grants nothing; a cluster that cannot answer is not a refusal.
  const rules = await readRoleRules(objects, role, minting.project, signal).catch((error: unknown) => {
    if (error instanceof ApiError && error.reason === 'TokenRoleNotFound') return [];
    throw error;
  });
  const explicit = rules.some(
    (rule) =>
      rule.apiGroups?.includes(objects.apiGroup) &&
      rule.resources?.includes('tokens') &&
      (rule.verbs?.includes('create') || rule.verbs?.includes('*')),
  );
  if (!explicit)
    throw apiError(
      'Forbidden',
      `Project token "${minting.name}" may not create tokens: its role ${describeRole(role)} has no rule naming tokens.${objects.apiGroup} with create`,
    );
}

/** What a RoleBinding of the rules grants in the namespace: non-resource URLs are granted only cluster-wide, so never. */
function grantedInNamespace(rules: PolicyRule[], namespace: string): ResourceAttributes[] {
  return rules.flatMap((rule) => {
    const names: Array<string | undefined> = rule.resourceNames?.length ? rule.resourceNames : [undefined];
    return (rule.apiGroups ?? []).flatMap((group) =>
      (rule.resources ?? []).flatMap((resourceText) => {
        const [resource, subresource] = resourceText.split('/', 2) as [string, string | undefined];
        return (rule.verbs ?? []).flatMap((verb) =>
          names.map((name) => ({
            verb,
            group,
            resource,
            ...(subresource ? { subresource } : {}),
            namespace,
            ...(name ? { name } : {}),
          })),
        );
      }),
    );
  });
}

async function allowed(authorizer: Authorizer, principal: Principal, attributes: ResourceAttributes): Promise<boolean> {
  try {
    await authorizer.authorize(principal, attributes);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return false;
    throw error;
  }
}

function describePermission(permission: ResourceAttributes): string {
  const resource = permission.subresource ? `${permission.resource}/${permission.subresource}` : permission.resource;
  const group = permission.group === '' ? '' : `.${permission.group}`;
  return `${resource}${group}${permission.name ? ` "${permission.name}"` : ''}`;
}
