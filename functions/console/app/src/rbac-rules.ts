// RBAC's matching of a request against a rule, as kube-apiserver's authorizer does it, for the rules a
// SelfSubjectRulesReview answers: the console reads every control of a Project's page from them.
/** What a request is authorized as: the attributes the route declares (docs/resources.md, Authorization). */
export interface ResourceAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  /** The namespace a SelfSubjectAccessReview asks about (a Project's); none: cluster-wide. */
  namespace?: string;
  name?: string;
}

/** One rule of a SelfSubjectRulesReview's `status.resourceRules`. */
export interface ResourceRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
}

/**
 * Whether one rule allows the attributes, as Kubernetes' RBAC matches them (plugin/pkg/auth/authorizer/rbac):
 * the verb or `*`; the group or `*`; the resource (with its subresource), a star, or a star with the subresource;
 * and, when the rule names resources, the request's name among them (a request without a name never matches those).
 */
export function ruleAllows(rule: ResourceRule, asked: ResourceAttributes): boolean {
  const resource = asked.subresource ? `${asked.resource}/${asked.subresource}` : asked.resource;
  return (
    (rule.verbs.includes('*') || rule.verbs.includes(asked.verb)) &&
    (rule.apiGroups.includes('*') || rule.apiGroups.includes(asked.group)) &&
    rule.resources.some(
      (named) =>
        named === '*' || named === resource || (asked.subresource !== undefined && named === `*/${asked.subresource}`),
    ) &&
    (!rule.resourceNames?.length || (asked.name !== undefined && rule.resourceNames.includes(asked.name)))
  );
}
