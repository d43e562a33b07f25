// RBAC escalation prevention, as the rbac registry's policy-based storage does (k8s.io/kubernetes/pkg/registry/rbac):
// a Role or ClusterRole may be written only by someone who holds every permission in it or may `escalate` it; a
// RoleBinding or ClusterRoleBinding only by someone who holds every permission of the role it references (in the
// binding's namespace) or may `bind` that role. Members of system:masters are exempt.
import { isDeepStrictEqual } from 'node:util';
import { authorize } from './authorizer-chain.ts';
import type { EmulatorContext } from '../emulator-context.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import type { PolicyRule, RoleRef } from './rbac-authorizer.ts';
import { describeMissingRules, quotedList, uncoveredRules } from './rbac-rule-coverage.ts';
import type { RequestInfo } from '../http/request-info.ts';
import type { ResourceType } from '../objects/resource-registry.ts';
import { KubeStatusError, forbidden, notFound } from '../http/status.ts';
import { MASTERS_GROUP } from '../reviews/user-info.ts';
import type { UserInfo } from '../reviews/user-info.ts';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const ROLE_RESOURCES = new Set(['roles', 'clusterroles']);
const BINDING_RESOURCES = new Set(['rolebindings', 'clusterrolebindings']);

// An update that only changes what garbage collection needs (owner references, finalizers) is never an escalation.
function changesOnlyGcFields(object: KubeObject, old: KubeObject): boolean {
  const comparable = (candidate: KubeObject) => {
    const {
      ownerReferences: _owners,
      finalizers: _finalizers,
      resourceVersion: _version,
      ...metadata
    } = candidate.metadata;
    return { ...candidate, apiVersion: undefined, kind: undefined, metadata };
  };
  return isDeepStrictEqual(comparable(object), comparable(old));
}

function allowed(
  context: EmulatorContext,
  user: UserInfo,
  verb: string,
  resource: string,
  namespace: string,
  name: string,
): boolean {
  const attributes = {
    user,
    verb,
    isResourceRequest: true,
    group: RBAC_GROUP,
    resource,
    subresource: '',
    namespace,
    name,
    path: '',
  };
  return authorize(context.authorizer, attributes).allowed;
}

// ConfirmNoEscalation: the caller's rules in the namespace must cover the granted ones.
function confirmNoEscalation(
  context: EmulatorContext,
  user: UserInfo,
  type: ResourceType,
  namespace: string,
  name: string,
  granted: PolicyRule[],
): void {
  const held = context.authorizer.rulesFor(user, namespace);
  const missing = uncoveredRules(held.rules, granted);
  if (missing.length === 0) return;
  let message = `user ${JSON.stringify(user.username)} (groups=${quotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${describeMissingRules(missing)}`;
  if (held.missingRoles.length > 0) {
    const errors = held.missingRoles.map(
      (roleRef) =>
        `${roleRef.kind === 'ClusterRole' ? 'clusterroles' : 'roles'}.${RBAC_GROUP} "${roleRef.name}" not found`,
    );
    message += `; resolution errors: [${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}]`;
  }
  throw forbidden(type, name, message);
}

function confirmRoleWrite(
  context: EmulatorContext,
  user: UserInfo,
  type: ResourceType,
  info: RequestInfo,
  object: KubeObject,
): void {
  if (allowed(context, user, 'escalate', type.resource, info.namespace, info.name)) return;
  confirmNoEscalation(
    context,
    user,
    type,
    info.namespace,
    object.metadata.name ?? '',
    (object.rules ?? []) as PolicyRule[],
  );
}

function confirmBindingWrite(
  context: EmulatorContext,
  user: UserInfo,
  type: ResourceType,
  info: RequestInfo,
  object: KubeObject,
): void {
  const roleRef = (object.roleRef ?? {}) as Partial<RoleRef>;
  const roleResource = roleRef.kind === 'ClusterRole' ? 'clusterroles' : roleRef.kind === 'Role' ? 'roles' : undefined;
  // The registry resolves the role before validation could refuse the kind.
  if (!roleResource)
    throw new KubeStatusError(
      500,
      'InternalError',
      `Internal error occurred: unsupported role reference kind: ${JSON.stringify(roleRef.kind ?? '')}`,
    );
  if (allowed(context, user, 'bind', roleResource, info.namespace, roleRef.name ?? '')) return;
  const ref = { kind: roleRef.kind!, name: roleRef.name ?? '' };
  const rules = context.authorizer.roleRules(ref, info.namespace);
  if (!rules) throw notFound({ group: RBAC_GROUP, resource: roleResource }, ref.name);
  confirmNoEscalation(context, user, type, info.namespace, object.metadata.name ?? '', rules);
}

/** Refuses (403) a write of an RBAC object that would grant the caller's `user` more than it holds. */
export function confirmRbacWrite(
  context: EmulatorContext,
  user: UserInfo,
  type: ResourceType,
  info: RequestInfo,
  object: KubeObject,
): void {
  if (type.group !== RBAC_GROUP || user.groups.includes(MASTERS_GROUP)) return;
  if (!ROLE_RESOURCES.has(type.resource) && !BINDING_RESOURCES.has(type.resource)) return;
  const old = info.verb === 'create' ? undefined : context.store.find(type, info.namespace, info.name);
  if (old && changesOnlyGcFields(object, old)) return;
  if (ROLE_RESOURCES.has(type.resource)) confirmRoleWrite(context, user, type, info, object);
  else confirmBindingWrite(context, user, type, info, object);
}
