import {
  type KubeConfig,
  RbacAuthorizationV1Api,
  type V1ClusterRoleBinding,
  type V1PolicyRule,
  type V1RoleBinding,
  type RbacV1Subject,
} from '@kubernetes/client-node';
import type { Logger } from '../base/logging/logger.ts';
import { kubernetesUnavailable } from '../base/kubernetes/kubernetes-unavailable.ts';
import type { RbacUser, SubjectRules, SubjectRulesReader } from './subject-rules.ts';

/**
 * The RBAC rules that apply to some users in one namespace, read from the cluster's bindings as
 * kube-apiserver's rule resolver reads them: the ClusterRoleBindings, and the namespace's
 * RoleBindings (to a Role there or a ClusterRole), whose subjects name one of the users or their
 * groups. A binding to a role that does not exist makes the answer `incomplete`, as there.
 * Reading RBAC objects needs `list` on them, which the chart grants the server (read only).
 */
export class RbacRulesReader implements SubjectRulesReader {
  readonly #api: RbacAuthorizationV1Api;
  readonly #logger: Logger;

  constructor(kubeConfig: KubeConfig, logger: Logger) {
    this.#api = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    this.#logger = logger;
  }

  async rulesFor(users: RbacUser[], namespace: string | undefined): Promise<SubjectRules> {
    let bindings: Array<V1ClusterRoleBinding | V1RoleBinding>;
    try {
      const [clusterBindings, namespaceBindings] = await Promise.all([
        this.#api.listClusterRoleBinding(),
        namespace ? this.#api.listNamespacedRoleBinding({ namespace }) : Promise.resolve({ items: [] }),
      ]);
      bindings = [...clusterBindings.items, ...namespaceBindings.items];
    } catch (error) {
      throw kubernetesUnavailable('list of RBAC bindings', error, this.#logger);
    }
    const applying = bindings.filter((candidate) => bindsAny(candidate.subjects ?? [], users));
    // Each role is read once, however many of the bindings name it (a common ClusterRole often is), all at once.
    const reads = new Map<string, Promise<V1PolicyRule[] | undefined>>();
    const roleOf = (binding: V1ClusterRoleBinding | V1RoleBinding) => {
      const { kind, name } = binding.roleRef;
      // A kind and a name are one role here: only RoleBindings name Roles, and those read are all in `namespace`.
      const key = `${kind}/${name}`;
      let read = reads.get(key);
      if (read === undefined) reads.set(key, (read = this.#roleRules(binding)));
      return read;
    };
    const found = await Promise.all(applying.map(roleOf));
    const missing: string[] = [];
    const rules: V1PolicyRule[] = [];
    applying.forEach((binding, index) => {
      const roleRules = found[index];
      if (roleRules === undefined) missing.push(`${binding.roleRef.kind} ${binding.roleRef.name}`);
      else rules.push(...roleRules);
    });
    // A rule naming resources is a resource rule, one naming URLs a non-resource rule (the API server allows no rule both).
    return {
      resourceRules: rules.flatMap(({ verbs, apiGroups, resources, resourceNames }) =>
        resources?.length
          ? [{ verbs, apiGroups: apiGroups ?? [], resources, ...(resourceNames?.length ? { resourceNames } : {}) }]
          : [],
      ),
      nonResourceRules: rules.flatMap(({ verbs, nonResourceURLs }) =>
        nonResourceURLs?.length ? [{ verbs, nonResourceURLs }] : [],
      ),
      incomplete: missing.length > 0,
      ...(missing.length > 0 ? { evaluationError: `bound roles not found: ${missing.join(', ')}` } : {}),
    };
  }

  /** The rules of the role a binding refers to; undefined when it does not exist. */
  async #roleRules(binding: V1ClusterRoleBinding | V1RoleBinding): Promise<V1PolicyRule[] | undefined> {
    const { kind, name } = binding.roleRef;
    const namespace = binding.metadata?.namespace;
    try {
      const role =
        kind === 'Role' && namespace
          ? await this.#api.readNamespacedRole({ name, namespace })
          : await this.#api.readClusterRole({ name });
      return role.rules ?? [];
    } catch (error) {
      if ((error as { code?: number }).code === 404) return undefined;
      throw kubernetesUnavailable(`read of ${kind} ${name}`, error, this.#logger);
    }
  }
}

/** Whether a binding's subjects name one of the users, or a group one of them is in. */
function bindsAny(subjects: RbacV1Subject[], users: RbacUser[]): boolean {
  return subjects.some((subject) =>
    users.some((user) => {
      switch (subject.kind) {
        case 'ServiceAccount':
          return user.user === `system:serviceaccount:${subject.namespace}:${subject.name}`;
        case 'User':
          return user.user === subject.name;
        case 'Group':
          return user.groups.includes(subject.name);
        default:
          return false;
      }
    }),
  );
}
