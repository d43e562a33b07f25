// The RBAC authorizer of kube-apiserver (plugin/pkg/auth/authorizer/rbac), evaluated against the stored
// ClusterRoleBindings, RoleBindings, ClusterRoles and Roles. Additive only: it allows or has no opinion.
import type { KubeObject } from '../objects/kube-object.ts';
import type { ResourceRegistry } from '../objects/resource-registry.ts';
import type { ResourceStore } from '../storage/resource-store.ts';
import { serviceAccountUsername } from '../reviews/user-info.ts';
import type { UserInfo } from '../reviews/user-info.ts';

/** What is being asked: a resource request (group, resource, ...) or a non-resource path. */
export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
}

/** The authorizer's answer; `reason` names the granting binding, or the role lookups that failed. */
export interface Decision {
  allowed: boolean;
  reason: string;
}

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  kind: string;
  name: string;
}

// A binding that applies to a user, with the rules of its role (undefined when the role does not exist).
interface AppliedBinding {
  binding: KubeObject;
  namespace: string;
  subject: Subject;
  roleRef: RoleRef;
  rules: PolicyRule[] | undefined;
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';

function verbMatches(rule: PolicyRule, verb: string): boolean {
  return (rule.verbs ?? []).some((ruleVerb) => ruleVerb === '*' || ruleVerb === verb);
}

function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((ruleGroup) => ruleGroup === '*' || ruleGroup === group);
}

function resourceMatches(rule: PolicyRule, combinedResource: string, subresource: string): boolean {
  return (rule.resources ?? []).some(
    (ruleResource) =>
      ruleResource === '*' ||
      ruleResource === combinedResource ||
      (subresource !== '' && ruleResource === `*/${subresource}`),
  );
}

// An empty resourceNames list allows every name; a non-empty one never matches a request without a name.
function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

function nonResourceUrlMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some(
    (ruleUrl) =>
      ruleUrl === '*' || ruleUrl === path || (ruleUrl.endsWith('*') && path.startsWith(ruleUrl.slice(0, -1))),
  );
}

/** Whether one policy rule covers the request (RuleAllows). */
export function ruleAllows(attributes: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attributes.verb)) return false;
  if (!attributes.isResourceRequest) return nonResourceUrlMatches(rule, attributes.path);
  const combined = attributes.subresource ? `${attributes.resource}/${attributes.subresource}` : attributes.resource;
  return (
    apiGroupMatches(rule, attributes.group) &&
    resourceMatches(rule, combined, attributes.subresource) &&
    resourceNameMatches(rule, attributes.name)
  );
}

// A ServiceAccount subject without a namespace means the binding's own namespace.
function appliesTo(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.username === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace;
      return namespace !== '' && user.username === serviceAccountUsername(namespace, subject.name);
    }
    default:
      return false;
  }
}

function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount')
    return `${subject.kind} "${subject.name}/${subject.namespace || bindingNamespace}"`;
  return `${subject.kind} "${subject.name}"`;
}

/** Evaluates requests against the RBAC objects in a store. */
export class RbacAuthorizer {
  readonly #store: ResourceStore;
  readonly #registry: ResourceRegistry;

  constructor(store: ResourceStore, registry: ResourceRegistry) {
    this.#store = store;
    this.#registry = registry;
  }

  /** Allows when any rule of any role bound to the user covers the request; the reason names the first grant. */
  authorize(attributes: AuthorizationAttributes): Decision {
    const errors: string[] = [];
    for (const { binding, namespace, subject, roleRef, rules } of this.#bindingsOf(
      attributes.user,
      attributes.namespace,
    )) {
      if (!rules) {
        errors.push(
          `${roleRef.kind === 'ClusterRole' ? 'clusterrole' : 'role'}.rbac.authorization.k8s.io "${roleRef.name}" not found`,
        );
        continue;
      }
      if (rules.some((rule) => ruleAllows(attributes, rule))) {
        const bindingName = namespace
          ? `RoleBinding "${binding.metadata.name}/${namespace}"`
          : `ClusterRoleBinding "${binding.metadata.name}"`;
        return {
          allowed: true,
          reason: `RBAC: allowed by ${bindingName} of ${roleRef.kind} "${roleRef.name}" to ${describeSubject(subject, namespace)}`,
        };
      }
    }
    const reason =
      errors.length === 0 ? '' : errors.length === 1 ? `RBAC: ${errors[0]}` : `RBAC: [${errors.join(', ')}]`;
    return { allowed: false, reason };
  }

  /**
   * Every rule the user holds in `namespace` (cluster-wide ones only for ''), as the rule resolver's RulesFor
   * collects them, and the roles its bindings reference that do not exist.
   */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; missingRoles: RoleRef[] } {
    const rules: PolicyRule[] = [];
    const missingRoles: RoleRef[] = [];
    for (const applied of this.#bindingsOf(user, namespace)) {
      if (applied.rules) rules.push(...applied.rules);
      else missingRoles.push(applied.roleRef);
    }
    return { rules, missingRoles };
  }

  /** The rules of the role a binding in `bindingNamespace` ('' for a ClusterRoleBinding) references; undefined if missing. */
  roleRules(roleRef: RoleRef, bindingNamespace: string): PolicyRule[] | undefined {
    const clusterScoped = roleRef.kind === 'ClusterRole';
    const type = this.#registry.get(RBAC_GROUP, clusterScoped ? 'clusterroles' : 'roles')!;
    const role = this.#store.find(type, clusterScoped ? undefined : bindingNamespace, roleRef.name);
    return role && ((role.rules ?? []) as PolicyRule[]);
  }

  // The ClusterRoleBindings, then the RoleBindings of `namespace`, that apply to the user, with their role's rules.
  *#bindingsOf(user: UserInfo, namespace: string): Generator<AppliedBinding> {
    const candidates = [
      ...this.#list('clusterrolebindings').map((binding) => ({ binding, namespace: '' })),
      ...(namespace ? this.#list('rolebindings', namespace) : []).map((binding) => ({
        binding,
        namespace: binding.metadata.namespace ?? '',
      })),
    ];
    for (const { binding, namespace: bindingNamespace } of candidates) {
      const subject = ((binding.subjects ?? []) as Subject[]).find((candidate) =>
        appliesTo(user, candidate, bindingNamespace),
      );
      if (!subject) continue;
      const roleRef = binding.roleRef as RoleRef;
      yield {
        binding,
        namespace: bindingNamespace,
        subject,
        roleRef,
        rules: this.roleRules(roleRef, bindingNamespace),
      };
    }
  }

  #list(resource: string, namespace?: string): KubeObject[] {
    return this.#store.list(this.#registry.get(RBAC_GROUP, resource)!, namespace);
  }
}
