// Issue 45, docs/resources.md "Example RBAC": the chart's ClusterRoles for approvers, approval policy owners and
// incident commanders (as helm renders them and the platform fixture loads them), bound as the example binds them,
// allow what the table says and nothing more: an approver approves but neither overrides nor changes the policy; a
// policy owner changes the policy (the freeze) but approves nothing; an incident commander overrides a freeze with
// a reason, and cannot change the policy either.
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_NAMESPACE } from '../../support/identity-cluster.ts';
import { API, GROUP, TEAM_PROJECT, callAs, expectStatus, send, usePlatform } from '../../support/platform-fixture.ts';

const platform = usePlatform();
const admin = callAs(platform, 'admin');
const RBAC_GROUP = 'rbac.authorization.k8s.io';
/** The chart's ClusterRoles for the release the fixture renders ("platform"). */
const CHART_ROLES = {
  approver: 'platform-approver',
  commander: 'platform-incident-commander',
  owner: 'platform-approval-policy-owner',
} as const;
type Holder = keyof typeof CHART_ROLES;
const tokens = new Map<Holder, string>();

beforeAll(async () => {
  const { cluster } = platform();
  const rbac = cluster.emulator.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
  for (const holder of Object.keys(CHART_ROLES) as Holder[]) {
    const account = `chart-role-${holder}`;
    await cluster.createServiceAccount(account);
    const binding = {
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: CHART_ROLES[holder] },
      subjects: [{ kind: 'ServiceAccount', name: account, namespace: TEST_NAMESPACE }],
    };
    // As the example binds them: the policy owner cluster-wide (Projects are cluster-scoped), the others per Project.
    if (holder === 'owner') await rbac.createClusterRoleBinding({ body: { metadata: { name: account }, ...binding } });
    else
      await rbac.createNamespacedRoleBinding({
        namespace: TEAM_PROJECT,
        body: { metadata: { name: account, namespace: TEAM_PROJECT }, ...binding },
      });
    tokens.set(holder, await cluster.mintToken(account));
  }
});

const as =
  (holder: Holder) =>
  (method: string, path: string, body?: unknown, contentType?: string): Promise<Response> =>
    send(platform().gateway.url, tokens.get(holder)!, method, path, body, contentType);
const MERGE = 'application/merge-patch+json';
const PROJECT_PATH = `${API}/projects/${TEAM_PROJECT}`;
const freeze = (active: boolean) => ({
  spec: { approvalPolicy: { freeze: active ? { active, reason: 'incident 4711' } : { active } } },
});
let rollouts = 0;
/** A Rollout whose one stage waits for an approval, written by the admin. */
async function waitingRollout(): Promise<string> {
  const name = `chart-roles-${++rollouts}`;
  await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/rollouts`, {
    apiVersion: `${GROUP}/v1alpha1`,
    kind: 'Rollout',
    metadata: { name },
    spec: { revision: 'r1', stages: [{ workspace: 'prod', approval: { required: true } }] },
  }).then(expectStatus(201));
  return name;
}
const approve = (holder: Holder, rollout: string, body: Record<string, unknown> = {}) =>
  as(holder)('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/rollouts/${rollout}/approve`, { stage: 'prod', ...body });

/** The server's own SelfSubjectAccessReview (what `kubectl auth can-i` asks) for `holder`. */
async function mayI(holder: Holder, attributes: Record<string, string>): Promise<boolean> {
  const review = await as(holder)('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: { resourceAttributes: { group: GROUP, ...attributes } },
  }).then(expectStatus(201));
  return review.status.allowed === true;
}

describe("Issue 45, docs/resources.md Example RBAC: the chart's ClusterRoles allow what the table says, and no more", () => {
  it('the approver approves, may not override, and may not change the policy', async () => {
    await approve('approver', await waitingRollout()).then(expectStatus(200));
    const refused = await approve('approver', await waitingRollout(), { override: { reason: 'please' } });
    expect((await expectStatus(403)(refused)).error).toContain('may not override');
    await as('approver')('PATCH', PROJECT_PATH, freeze(true), MERGE).then(expectStatus(403));
    expect(await mayI('approver', { namespace: TEAM_PROJECT, verb: 'approve', resource: 'rollouts' })).toBe(true);
    expect(
      await mayI('approver', { namespace: TEAM_PROJECT, verb: 'approve', resource: 'workspaces', subresource: 'runs' }),
    ).toBe(true);
    expect(await mayI('approver', { namespace: TEAM_PROJECT, verb: 'override', resource: 'rollouts' })).toBe(false);
  });

  it('the policy owner freezes and thaws the Project, and approves nothing', async () => {
    await as('owner')('PATCH', PROJECT_PATH, freeze(true), MERGE).then(expectStatus(200));
    try {
      await approve('owner', await waitingRollout()).then(expectStatus(403));
      expect(
        await mayI('owner', {
          verb: 'update',
          resource: 'projects',
          subresource: 'approvalpolicy',
          name: TEAM_PROJECT,
        }),
      ).toBe(true);
    } finally {
      await as('owner')('PATCH', PROJECT_PATH, freeze(false), MERGE).then(expectStatus(200));
    }
  });

  it('the incident commander overrides a freeze with a reason, and may not change the policy', async () => {
    await admin('PATCH', PROJECT_PATH, freeze(true), { 'content-type': MERGE }).then(expectStatus(200));
    try {
      const rollout = await waitingRollout();
      expect((await approve('commander', rollout).then(expectStatus(409))).reason).toBe('ProjectFrozen');
      await approve('commander', rollout, { override: { reason: 'the fix for incident 4711' } }).then(
        expectStatus(200),
      );
      await as('commander')('PATCH', PROJECT_PATH, freeze(false), MERGE).then(expectStatus(403));
      expect(await mayI('commander', { namespace: TEAM_PROJECT, verb: 'override', resource: 'rollouts' })).toBe(true);
      expect(
        await mayI('commander', {
          namespace: TEAM_PROJECT,
          verb: 'override',
          resource: 'workspaces',
          subresource: 'runs',
          name: 'network',
        }),
      ).toBe(true);
    } finally {
      await admin('PATCH', PROJECT_PATH, freeze(false), { 'content-type': MERGE }).then(expectStatus(200));
    }
  });
});
