// What a SelfSubjectRulesReview answers, apart from the reader of the cluster's RBAC bindings
// (rbac-rules.ts): the resources function answers the admin's review without loading the Kubernetes client.
/** A user as RBAC bindings name it. */
export interface RbacUser {
  user: string;
  groups: string[];
}

/** What a SelfSubjectRulesReview answers in its status, as kube-apiserver words it. */
export interface SubjectRules {
  resourceRules: Array<{ verbs: string[]; apiGroups: string[]; resources: string[]; resourceNames?: string[] }>;
  nonResourceRules: Array<{ verbs: string[]; nonResourceURLs: string[] }>;
  incomplete: boolean;
  evaluationError?: string;
}

/** Every permission: the admin's, by the bypass. */
export const ALL_RULES: SubjectRules = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
};

/** Reads the rules that apply to some users in one namespace (RbacRulesReader, or one loading it on first use). */
export interface SubjectRulesReader {
  rulesFor(users: RbacUser[], namespace: string | undefined): Promise<SubjectRules>;
}
