// Only what you may do (issue 24 item 5, issue 40 item 5): a control is shown when the user's RBAC
// rules allow what it sends. In a Project's namespace the console asks one SelfSubjectRulesReview
// (`kubectl auth can-i --list -n <project>`) and reads every control of the page from its rules;
// cluster-wide questions (create a Project, read the audit trail) and a cluster-scoped Project's own
// writes are one SelfSubjectAccessReview each, since a namespace's rules mix in its RoleBindings,
// which grant nothing cluster-wide. Both are answered by the authorizer the routes use.
import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api.ts';
import { apiGroup } from './platform-api.ts';
import { type ResourceAttributes, type ResourceRule, ruleAllows } from './rbac-rules.ts';
import { currentToken } from './session.ts';

/**
 * One rules review per namespace, and one access review per question, for the session's token; a
 * new token (another user) asks again.
 */
let reviewedFor: string | null = null;
const reviews = new Map<string, Promise<ResourceRule[]>>();
const answers = new Map<string, Promise<boolean>>();

function forOtherUser(): void {
  if (reviewedFor === currentToken()) return;
  reviews.clear();
  answers.clear();
  reviewedFor = currentToken();
}

/** The answer kept for `key`, or a new one asked; a failed one is asked again next time, not remembered. */
function remembered<T>(cache: Map<string, Promise<T>>, key: string, ask: () => Promise<T>): Promise<T> {
  forOtherUser();
  let answer = cache.get(key);
  if (!answer) {
    answer = ask();
    cache.set(key, answer);
    answer.catch(() => cache.delete(key));
  }
  return answer;
}

function rulesIn(api: Api, namespace: string): Promise<ResourceRule[]> {
  return remembered(reviews, namespace, () =>
    api
      .post<{ status?: { resourceRules?: ResourceRule[] } }>('/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectRulesReview',
        spec: { namespace },
      })
      .then((answer) => answer.status?.resourceRules ?? []),
  );
}

/** Forgets a namespace's rules (and the cluster-wide answers): after the server refused something they allowed, the next page asks again. */
export function forgetRules(namespace: string): void {
  reviews.delete(namespace);
  answers.clear();
}

/** What the user may do with the platform's kinds in a Project: `may('create', 'workspaces/runs', 'network')`. */
export interface ProjectPermissions {
  may(verb: string, resource: string, name?: string): boolean;
}

const NOTHING: ProjectPermissions = { may: () => false };

/**
 * The user's permissions on the platform's kinds in `project`'s namespace, from one
 * SelfSubjectRulesReview per namespace: nothing until it answers, or when it cannot be had.
 */
export function useProjectPermissions(api: Api, project: string): ProjectPermissions {
  const [permissions, setPermissions] = useState<ProjectPermissions>(NOTHING);
  useEffect(() => {
    let live = true;
    setPermissions(NOTHING);
    Promise.all([rulesIn(api, project), apiGroup(api)]).then(
      ([rules, group]) =>
        live &&
        setPermissions({
          may(verb, resource, name) {
            const [plural = resource, subresource] = resource.split('/');
            const asked = {
              verb,
              group,
              resource: plural,
              ...(subresource !== undefined ? { subresource } : {}),
              ...(name !== undefined ? { name } : {}),
            };
            return rules.some((rule) => ruleAllows(rule, asked));
          },
        }),
      () => live && setPermissions(NOTHING),
    );
    return () => {
      live = false;
    };
  }, [project]);
  return permissions;
}

async function isAllowed(api: Api, attributes: ResourceAttributes): Promise<boolean> {
  const review = await api.post<{ status?: { allowed?: boolean } }>(
    '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: attributes },
    },
  );
  return review.status?.allowed === true;
}

/** Whether the caller may read the audit trail: `list` on `events` in `audit.k8s.io`, cluster-wide (docs/audit.md). */
export const READ_AUDIT: ResourceAttributes = { verb: 'list', group: 'audit.k8s.io', resource: 'events' };

/**
 * Whether the caller may do one cluster-wide thing (a SelfSubjectAccessReview without a namespace):
 * false until the review answers (a control never flashes into view and out), and while
 * `attributes` is not known yet (no review is sent then).
 */
export function useAllowed(api: Api, attributes: ResourceAttributes | undefined): boolean {
  const [allowed, setAllowed] = useState(false);
  const key = JSON.stringify(attributes ?? null);
  useEffect(() => {
    let live = true;
    setAllowed(false);
    if (attributes)
      remembered(answers, key, () => isAllowed(api, attributes)).then(
        (answer) => live && setAllowed(answer),
        () => live && setAllowed(false),
      );
    return () => {
      live = false;
    };
  }, [key]);
  return allowed;
}
