// Issue 38, item 3: a SelfSubjectAccessReview for a non-resource path the server itself routes
// (`/api/v1alpha1/audit/events`, `/api/v1alpha1/projects/p/runs`, `/apis/<group>/v1alpha1/projects`)
// answered `allowed: true` for a ServiceAccount with no rights, from the cluster's `system:discovery`
// grant (`/api/*`, `/apis/*`), while the route answered 403; the rules review listed `/api/*`. A path
// the server routes is now reviewed with the attributes its route is authorized by (the chain's own
// decision), and the rules review lists only the non-resource grants a route honours. Every case
// below is also sent to the route itself, whose answer must agree.
import { beforeAll, describe, expect, it } from 'vitest';
import { GROUP, OTHER_PROJECT, TEAM_PROJECT, send, usePlatform } from '../../support/platform-fixture.ts';

const platform = usePlatform();
const API = `/apis/${GROUP}/v1alpha1`;
const NO_SUCH_RUN = '0190a0a0-0000-7000-8000-00000000abcd';

/** ServiceAccounts of this file: one with no rights at all, one that may read the audit trail, one granted every non-resource URL. */
const tokens: Record<'nobody' | 'auditor' | 'everyUrl', string> = { nobody: '', auditor: '', everyUrl: '' };
type Who = keyof typeof tokens | 'serviceAccount' | 'controller' | 'admin';
const tokenOf = (who: Who) =>
  who === 'serviceAccount' || who === 'controller' || who === 'admin' ? platform().tokens[who] : tokens[who];

beforeAll(async () => {
  const { cluster } = platform();
  for (const name of Object.keys(tokens) as Array<keyof typeof tokens>) {
    await cluster.createServiceAccount(`review-${name.toLowerCase()}`);
    tokens[name] = await cluster.mintToken(`review-${name.toLowerCase()}`);
  }
  await cluster.grantClusterRules('review-auditor', [
    { apiGroups: ['audit.k8s.io'], resources: ['events'], verbs: ['list'] },
  ]);
  await cluster.grantClusterRules('review-everyurl', [{ nonResourceURLs: ['*'], verbs: ['get'] }]);
});

/** Posts a review of `kind` (`SelfSubjectAccessReview`, `SelfSubjectRulesReview`) as `who`: its status. */
async function reviewStatus<Status>(who: Who, kind: string, spec: object): Promise<Status> {
  const path = `/apis/authorization.k8s.io/v1/${kind.toLowerCase()}s`;
  const body = { apiVersion: 'authorization.k8s.io/v1', kind, spec };
  const response = await send(platform().gateway.url, tokenOf(who), 'POST', path, body);
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { status: Status }).status;
}

const accessReview = (who: Who, verb: string, path: string) =>
  reviewStatus<{ allowed: boolean; reason?: string }>(who, 'SelfSubjectAccessReview', {
    nonResourceAttributes: { path, verb },
  });

const rulesReview = async (who: Who) =>
  (
    await reviewStatus<{ nonResourceRules: Array<{ verbs: string[]; nonResourceURLs: string[] }> }>(
      who,
      'SelfSubjectRulesReview',
      { namespace: TEAM_PROJECT },
    )
  ).nonResourceRules;

/** [who, verb, path, the review's answer, the route's status for the same request]. */
const CASES: Array<[Who, string, string, boolean, number]> = [
  // No rights: system:discovery's `/api/*` and `/apis/*` do not reach the routes under them.
  ['nobody', 'get', '/api/v1alpha1/audit/events', false, 403],
  ['nobody', 'get', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs`, false, 403],
  ['nobody', 'get', `${API}/projects`, false, 403],
  ['nobody', 'get', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, false, 403],
  ['nobody', 'post', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/no-such/runs`, false, 403],
  ['nobody', 'get', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${NO_SUCH_RUN}`, false, 403],
  ['nobody', 'get', '/internal/runs', false, 403],
  ['nobody', 'get', '/metrics', false, 403],
  // What any authenticated caller may use, and the open routes.
  ['nobody', 'get', '/api/v1alpha1/auth/whoami', true, 200],
  ['nobody', 'get', '/api', true, 200],
  ['nobody', 'get', `${API}`, true, 200],
  ['nobody', 'get', '/healthz', true, 200],
  // What the server does not route, or not with that verb, or not with that segment: never allowed.
  ['nobody', 'get', '/api/v1alpha1/nothing-here', false, 404],
  ['admin', 'delete', '/api/v1alpha1/audit/events', false, 405],
  ['admin', 'get', '/api/v1alpha1/projects/Not.A.Label/runs', false, 400],
  // The route's real rights.
  ['auditor', 'get', '/api/v1alpha1/audit/events', true, 200],
  ['auditor', 'get', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs`, false, 403],
  ['serviceAccount', 'get', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs`, true, 200],
  ['serviceAccount', 'get', `/api/v1alpha1/projects/${OTHER_PROJECT}/runs`, false, 403],
  ['serviceAccount', 'post', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/no-such/runs`, true, 404],
  ['serviceAccount', 'get', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${NO_SUCH_RUN}`, true, 404],
  ['serviceAccount', 'get', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, true, 200],
  // A query takes effect as on the route: a watch is `watch`, which this account's Role lacks.
  ['serviceAccount', 'get', `${API}/namespaces/${TEAM_PROJECT}/workspaces?watch=1`, false, 403],
  ['serviceAccount', 'get', '/api/v1alpha1/audit/events', false, 403],
  ['controller', 'get', '/internal/runs', true, 200],
  ['controller', 'post', '/internal/runs/claim', true, 400],
  ['everyUrl', 'get', '/metrics', true, 200],
  ['everyUrl', 'get', '/api/v1alpha1/audit/events', false, 403],
  ['admin', 'get', '/api/v1alpha1/audit/events', true, 200],
];

describe('issue 38 item 3: a SelfSubjectAccessReview of a routed path answers as the route decides', () => {
  it.each(CASES)('%s %s %s: allowed %s, as the route answers %i', async (who, verb, path, allowed, status) => {
    const answer = await accessReview(who, verb, path);
    expect(answer.allowed, answer.reason).toBe(allowed);
    const [pathOnly, query] = path.split('?');
    const route = await fetch(`${platform().gateway.url}${pathOnly}${query ? `?${query}` : ''}`, {
      method: verb.toUpperCase(),
      headers: { authorization: `Bearer ${tokenOf(who)}`, 'content-type': 'application/json' },
      ...(verb === 'post' ? { body: JSON.stringify({ type: 'plan' }) } : {}),
    });
    // A streaming answer (a watch) is not read: its status is enough.
    await route.body?.cancel();
    expect(route.status).toBe(status);
    expect(route.status === 403).toBe(!allowed && status === 403);
  });

  it('says why: the attributes the route is authorized by, or that nothing is routed there', async () => {
    expect((await accessReview('nobody', 'get', '/api/v1alpha1/audit/events')).reason).toContain(
      'list events.audit.k8s.io',
    );
    expect((await accessReview('nobody', 'get', '/api/v1alpha1/nothing-here')).reason).toContain('routes nothing');
    expect((await accessReview('admin', 'delete', '/api/v1alpha1/audit/events')).reason).toContain('GET');
  });

  it('verb `*`: allowed only when every method routed at the path is', async () => {
    expect((await accessReview('controller', '*', '/internal/runs')).allowed).toBe(false);
    expect((await accessReview('admin', '*', '/api/v1alpha1/audit/events')).allowed).toBe(true);
    expect((await accessReview('auditor', '*', '/api/v1alpha1/audit/events')).allowed).toBe(true);
    expect((await accessReview('nobody', '*', '/api/v1alpha1/audit/events')).allowed).toBe(false);
  });
});

describe('issue 38 item 3: a SelfSubjectRulesReview lists only the non-resource grants a route honours', () => {
  it('no rights: nothing (system:discovery and system:public-info-viewer grant nothing the routes honour)', async () => {
    expect(await rulesReview('nobody')).toEqual([]);
  });

  it("the controller: its /internal grants, as bound; a grant of every URL: the routes' non-resource URLs", async () => {
    expect(await rulesReview('controller')).toEqual([
      { verbs: ['get', 'post'], nonResourceURLs: ['/internal', '/internal/*'] },
    ]);
    expect(await rulesReview('everyUrl')).toEqual([
      { verbs: ['get'], nonResourceURLs: ['/metrics', '/internal', '/internal/*'] },
    ]);
  });

  it('the admin: every permission, by the bypass', async () => {
    expect(await rulesReview('admin')).toEqual([{ verbs: ['*'], nonResourceURLs: ['*'] }]);
  });
});
