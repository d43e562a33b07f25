// Issue 43, item 7 and issue 45, item 2 (docs/resources.md "Approvals"): an approval is recorded in one write of the
// Rollout's status (the approver's record and, when the policy is met, the gate), so no state shows a grant without
// its approver; a Project's policy asks several distinct approvers, approvers from named groups and four eyes,
// judged when each approval is given whatever changed in between; an approval can be withdrawn; and each holds
// through every write path (the approve route, merge and JSON patches of the spec, server-side apply, the status
// subresource, delete and re-create). Through the gateway, on the emulator with the chart's CRDs and RBAC.
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { AuditCapture } from '../../support/audit-capture.ts';
import {
  STAGES,
  createRollout,
  rolloutObject,
  rolloutPath,
  useApprovalCallers,
  userOf,
  type ApprovalCaller,
} from '../../support/approval-callers.ts';
import { API, GROUP, TEAM_PROJECT, expectStatus, send, usePlatform } from '../../support/platform-fixture.ts';

const audit = new AuditCapture();
const platform = usePlatform({}, { auditSinks: [audit] });
const tokenOf = useApprovalCallers(platform);

// A release manager: a ServiceAccount of its own namespace, so its groups (system:serviceaccounts:<namespace>, as
// TokenReview says them) differ from the other callers'; it may approve Rollouts in TEAM_PROJECT.
const RELEASE_NAMESPACE = 'release-managers';
const RELEASE_GROUP = `system:serviceaccounts:${RELEASE_NAMESPACE}`;
const RELEASE_MANAGER = `system:serviceaccount:${RELEASE_NAMESPACE}:release-manager`;
let releaseManagerToken = '';
beforeAll(async () => {
  const config = platform().cluster.emulator.kubeConfig();
  const core = config.makeApiClient(CoreV1Api);
  const rbac = config.makeApiClient(RbacAuthorizationV1Api);
  await core.createNamespace({ body: { metadata: { name: RELEASE_NAMESPACE } } });
  await core.createNamespacedServiceAccount({
    namespace: RELEASE_NAMESPACE,
    body: { metadata: { name: 'release-manager' } },
  });
  await rbac.createNamespacedRole({
    namespace: TEAM_PROJECT,
    body: {
      metadata: { name: 'release-manager' },
      rules: [{ apiGroups: [GROUP], resources: ['rollouts'], verbs: ['get', 'approve'] }],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: TEAM_PROJECT,
    body: {
      metadata: { name: 'release-manager' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'release-manager' },
      subjects: [{ kind: 'ServiceAccount', namespace: RELEASE_NAMESPACE, name: 'release-manager' }],
    },
  });
  const request = await core.createNamespacedServiceAccountToken({
    namespace: RELEASE_NAMESPACE,
    name: 'release-manager',
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  releaseManagerToken = request.status!.token!;
});

type Who = ApprovalCaller | 'admin' | 'release-manager';
const token = (who: Who) =>
  who === 'admin' ? platform().tokens.admin : who === 'release-manager' ? releaseManagerToken : tokenOf(who);
const as =
  (who: Who) =>
  (method: string, path: string, body?: unknown, contentType?: string): Promise<Response> =>
    send(platform().gateway.url, token(who), method, path, body, contentType);
const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const APPLY = 'application/apply-patch+yaml';
const routeOf = (name: string, action: 'approve' | 'withdraw') =>
  `/api/v1alpha1/projects/${TEAM_PROJECT}/rollouts/${name}/${action}`;

interface Stage {
  workspace: string;
  approved?: boolean;
}
interface ApprovalRecord {
  approvedBy: string;
  revision: string;
  groups?: string[];
}
type Rollout = {
  metadata: { name: string; resourceVersion: string };
  spec: { revision: string; stages: Stage[] };
  status?: { stages?: Array<{ workspace: string; approval?: ApprovalRecord; approvals?: ApprovalRecord[] }> };
};

/** The Rollout as clients read it (through the API). */
const shown = async (name: string): Promise<Rollout> => as('admin')('GET', rolloutPath(name)).then(expectStatus(200));
const statusOf = (rollout: Rollout, workspace: string) =>
  rollout.status?.stages?.find((stage) => stage.workspace === workspace);
const approvedIn = (rollout: Rollout, workspace: string) =>
  rollout.spec.stages.find((stage) => stage.workspace === workspace)?.approved === true;
const approversOf = async (name: string, workspace: string) =>
  (statusOf(await shown(name), workspace)?.approvals ?? []).map((record) => record.approvedBy);
const withApproved = (stages: Stage[], workspace: string, approved = true): Stage[] =>
  stages.map((stage) => (stage.workspace === workspace ? { ...stage, approved } : stage));

/** Sets TEAM_PROJECT's policy (as the admin) for stage `staging` of Rollout `name` (ungated in its own spec). */
async function stagingPolicy(
  name: string,
  approvals: { count?: number; groups?: string[]; distinctFromAuthor?: boolean },
) {
  await as('admin')(
    'PATCH',
    `${API}/projects/${TEAM_PROJECT}`,
    { spec: { approvalPolicy: { stages: [{ rollout: name, stage: 'staging', approvals }] } } },
    MERGE,
  ).then(expectStatus(200));
}

let rollouts = 0;
/** A new Rollout with STAGES, created by `author` (its revision's author). */
async function newRollout(author: Who = 'admin'): Promise<string> {
  const name = `records-${++rollouts}`;
  await createRollout(platform, token(author), name);
  return name;
}

/** Approves `stage` as `who` by one write path. */
type Approving = (who: Who, name: string, stage: string) => Promise<Response>;
const APPROVING: Record<string, Approving> = {
  'the approve route': (who, name, stage) => as(who)('POST', routeOf(name, 'approve'), { stage }),
  'a merge patch of the spec': async (who, name, stage) =>
    as(who)(
      'PATCH',
      rolloutPath(name),
      { spec: { stages: withApproved((await shown(name)).spec.stages, stage) } },
      MERGE,
    ),
  'a JSON patch of the spec': async (who, name, stage) => {
    const index = (await shown(name)).spec.stages.findIndex((candidate) => candidate.workspace === stage);
    return as(who)(
      'PATCH',
      rolloutPath(name),
      [{ op: 'replace', path: `/spec/stages/${index}/approved`, value: true }],
      JSON_PATCH,
    );
  },
  'a server-side apply': (who, name, stage) =>
    as(who)(
      'PATCH',
      `${rolloutPath(name)}?fieldManager=records-test`,
      JSON.stringify(rolloutObject(name, 'r1', withApproved(STAGES, stage))),
      APPLY,
    ),
};
// The release manager may only approve: it uses the approve route.
const PATHS = Object.entries(APPROVING);

/**
 * Every state of Rollout `name` a watch (as the admin, through the API) sees after `resourceVersion`, up to and
 * including `until`, which `act` resolves to (the resourceVersion its write answered).
 */
async function statesDuring(name: string, resourceVersion: string, act: () => Promise<string>): Promise<Rollout[]> {
  const aborted = new AbortController();
  const response = await fetch(
    `${platform().gateway.url}${API}/namespaces/${TEAM_PROJECT}/rollouts?watch=true&resourceVersion=${resourceVersion}`,
    { headers: { authorization: `Bearer ${platform().tokens.admin}` }, signal: aborted.signal },
  );
  expect(response.status).toBe(200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const until = Number(await act());
  const states: Rollout[] = [];
  let buffered = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the watch ended before the write was seen');
      buffered += value;
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines.filter(Boolean)) {
        const object = (JSON.parse(line) as { object: Rollout }).object;
        if (object.metadata.name !== name) continue;
        states.push(object);
        if (Number(object.metadata.resourceVersion) >= until) return states;
      }
    }
  } finally {
    aborted.abort();
  }
}

describe('Issue 43, item 7: an approval is recorded in one write, so no failure can leave a grant without its approver', () => {
  it.each(PATHS)(
    '%s: every state of the Rollout a watch sees that shows the stage approved names its approver',
    async (_path, approve) => {
      const name = await newRollout();
      const before = await shown(name);
      const states = await statesDuring(name, before.metadata.resourceVersion, async () => {
        const answer = await approve('rollout-approver', name, 'prod').then(expectStatus(200));
        return answer.metadata.resourceVersion;
      });
      expect(states.some((state) => approvedIn(state, 'prod'))).toBe(true);
      for (const state of states.filter((candidate) => approvedIn(candidate, 'prod')))
        expect(statusOf(state, 'prod')?.approval).toMatchObject({
          approvedBy: userOf('rollout-approver'),
          revision: 'r1',
        });
    },
  );

  it('the approve route writes the status alone: the spec (and its generation) is as before', async () => {
    const name = await newRollout();
    const before = await shown(name);
    const approved = await as('rollout-approver')('POST', routeOf(name, 'approve'), { stage: 'prod' }).then(
      expectStatus(200),
    );
    expect(approved.metadata.generation).toBe((before as { metadata: { generation?: number } }).metadata.generation);
    expect(approvedIn(approved, 'prod')).toBe(true);
  });
});

describe('Issue 45, item 2: a stage that needs two distinct approvers', () => {
  it.each(PATHS)(
    '%s: the first approval leaves the gate shut; the same approver again is 409; a second opens it',
    async (_path, approve) => {
      const name = await newRollout();
      await stagingPolicy(name, { count: 2 });
      const first = await approve('rollout-approver', name, 'staging').then(expectStatus(200));
      expect(approvedIn(first, 'staging')).toBe(false);
      expect(await approversOf(name, 'staging')).toEqual([userOf('rollout-approver')]);

      const again = await as('rollout-approver')('POST', routeOf(name, 'approve'), { stage: 'staging' }).then(
        expectStatus(409),
      );
      expect(again.reason).toBe('AlreadyApproved');
      expect(approvedIn(await shown(name), 'staging')).toBe(false);

      const second = await approve('second-approver', name, 'staging').then(expectStatus(200));
      expect(approvedIn(second, 'staging')).toBe(true);
      expect(await approversOf(name, 'staging')).toEqual([userOf('rollout-approver'), userOf('second-approver')]);
      expect(statusOf(second, 'staging')?.approval).toMatchObject({
        approvedBy: userOf('second-approver'),
        revision: 'r1',
      });
    },
  );

  it('a new revision closes the gate; the approvals of the old one no longer count', async () => {
    const name = await newRollout();
    await stagingPolicy(name, { count: 2 });
    for (const who of ['rollout-approver', 'second-approver'] as const)
      await as(who)('POST', routeOf(name, 'approve'), { stage: 'staging' }).then(expectStatus(200));
    await as('rollout-writer')('PATCH', rolloutPath(name), { spec: { revision: 'r2' } }, MERGE).then(expectStatus(200));
    expect(approvedIn(await shown(name), 'staging')).toBe(false);
    expect(await approversOf(name, 'staging')).toEqual([]);
    const one = await as('rollout-approver')('POST', routeOf(name, 'approve'), { stage: 'staging' }).then(
      expectStatus(200),
    );
    expect(approvedIn(one, 'staging')).toBe(false);
  });
});

describe('Issue 45, item 2: approvers required from a named group', () => {
  it('approvals from outside the group leave the gate shut; one from the group opens it, and its record names the group', async () => {
    const name = await newRollout();
    await stagingPolicy(name, { count: 1, groups: [RELEASE_GROUP] });
    const outside = await as('rollout-approver')('POST', routeOf(name, 'approve'), { stage: 'staging' }).then(
      expectStatus(200),
    );
    expect(approvedIn(outside, 'staging')).toBe(false);
    const inside = await as('release-manager')('POST', routeOf(name, 'approve'), { stage: 'staging' }).then(
      expectStatus(200),
    );
    expect(approvedIn(inside, 'staging')).toBe(true);
    expect(
      statusOf(inside, 'staging')?.approvals?.find((record) => record.approvedBy === RELEASE_MANAGER)?.groups,
    ).toContain(RELEASE_GROUP);
  });

  it.each(PATHS)('%s by a caller outside the group: recorded, and the gate stays shut', async (_path, approve) => {
    const name = await newRollout();
    await stagingPolicy(name, { groups: [RELEASE_GROUP] });
    await approve('rollout-approver', name, 'staging').then(expectStatus(200));
    expect(approvedIn(await shown(name), 'staging')).toBe(false);
    expect(await approversOf(name, 'staging')).toEqual([userOf('rollout-approver')]);
  });
});

describe("Issue 45, item 2: four eyes after a policy change in between (the admin's variant: the admin authored the revision)", () => {
  it("the author's approval given before four eyes no longer counts once the policy asks them; the author may not approve again", async () => {
    const name = await newRollout('admin');
    await stagingPolicy(name, { count: 2 });
    await as('admin')('POST', routeOf(name, 'approve'), { stage: 'staging' }).then(expectStatus(200));
    await stagingPolicy(name, { count: 2, distinctFromAuthor: true });

    const one = await as('rollout-approver')('POST', routeOf(name, 'approve'), { stage: 'staging' }).then(
      expectStatus(200),
    );
    expect(approvedIn(one, 'staging')).toBe(false);
    const refused = await as('admin')('POST', routeOf(name, 'approve'), { stage: 'staging' }).then(expectStatus(409));
    expect(refused.reason).toBe('ApproverIsAuthor');
    const two = await as('second-approver')('POST', routeOf(name, 'approve'), { stage: 'staging' }).then(
      expectStatus(200),
    );
    expect(approvedIn(two, 'staging')).toBe(true);
  });

  it.each(PATHS)('%s by the author under four eyes: 409 ApproverIsAuthor, nothing recorded', async (_path, approve) => {
    const name = await newRollout('rollout-approver');
    await stagingPolicy(name, { distinctFromAuthor: true });
    const refused = await approve('rollout-approver', name, 'staging').then(expectStatus(409));
    expect(refused.reason).toBe('ApproverIsAuthor');
    expect(await approversOf(name, 'staging')).toEqual([]);
  });
});

describe('Issue 45, item 2: withdrawing an approval (a route authorized as approve)', () => {
  it('an approver withdraws its own approval: its record goes, and the audit event names the caller and the approver', async () => {
    const name = await newRollout();
    await stagingPolicy(name, { count: 2 });
    await as('rollout-approver')('POST', routeOf(name, 'approve'), { stage: 'staging' }).then(expectStatus(200));
    const response = await as('rollout-approver')('POST', routeOf(name, 'withdraw'), { stage: 'staging' });
    await expectStatus(200)(response);
    expect(await approversOf(name, 'staging')).toEqual([]);
    expect(audit.completed(response)).toMatchObject({
      verb: 'approve',
      user: { username: userOf('rollout-approver') },
      annotations: {
        'platform-api/withdrawn-approvers': userOf('rollout-approver'),
        'platform-api/author': 'admin',
        'platform-api/withdrawn-approvals': 'staging',
      },
    });
  });

  it("withdrawing another approver's approval closes an open gate, in the same write; both principals are in the audit trail", async () => {
    const name = await newRollout();
    await as('rollout-approver')('POST', routeOf(name, 'approve'), { stage: 'prod' }).then(expectStatus(200));
    expect(approvedIn(await shown(name), 'prod')).toBe(true);
    const response = await as('second-approver')('POST', routeOf(name, 'withdraw'), {
      stage: 'prod',
      approver: userOf('rollout-approver'),
    });
    const answer = await expectStatus(200)(response);
    expect(approvedIn(answer, 'prod')).toBe(false);
    expect(statusOf(answer, 'prod')?.approval).toBeUndefined();
    expect(audit.completed(response)).toMatchObject({
      user: { username: userOf('second-approver') },
      annotations: { 'platform-api/withdrawn-approvers': userOf('rollout-approver') },
    });
  });

  it('a spec write that withdraws every approval of a stage names their approvers and the author beside the caller', async () => {
    const name = await newRollout();
    await stagingPolicy(name, { count: 2 });
    for (const who of ['rollout-approver', 'second-approver'] as const)
      await as(who)('POST', routeOf(name, 'approve'), { stage: 'staging' }).then(expectStatus(200));
    const response = await as('rollout-writer')(
      'PATCH',
      rolloutPath(name),
      { spec: { stages: withApproved((await shown(name)).spec.stages, 'staging', false) } },
      MERGE,
    );
    expect(approvedIn(await expectStatus(200)(response), 'staging')).toBe(false);
    expect(await approversOf(name, 'staging')).toEqual([]);
    expect(audit.completed(response)).toMatchObject({
      user: { username: userOf('rollout-writer') },
      annotations: {
        'platform-api/withdrawn-approvals': 'staging',
        'platform-api/withdrawn-approvers': `${userOf('rollout-approver')},${userOf('second-approver')}`,
        'platform-api/author': 'admin',
      },
    });
  });

  it('a caller without approve is 403; an approval that is not there is 404 ApprovalNotFound', async () => {
    const name = await newRollout();
    await as('rollout-approver')('POST', routeOf(name, 'approve'), { stage: 'prod' }).then(expectStatus(200));
    await as('rollout-writer')('POST', routeOf(name, 'withdraw'), { stage: 'prod' }).then(expectStatus(403));
    const missing = await as('second-approver')('POST', routeOf(name, 'withdraw'), { stage: 'prod' }).then(
      expectStatus(404),
    );
    expect(missing.reason).toBe('ApprovalNotFound');
    expect(approvedIn(await shown(name), 'prod')).toBe(true);
  });
});

describe("Issue 45, item 2: the records are the server's on every other write path", () => {
  it('a status patch that writes approvals and an open gate is kept as stored: the stage stays shut', async () => {
    const name = await newRollout();
    const forged = { approvedBy: 'mallory', approvedAt: '2020-01-01T00:00:00Z', revision: 'r1' };
    await as('rollout-writer')(
      'PATCH',
      `${rolloutPath(name)}/status`,
      { status: { stages: [{ workspace: 'prod', approval: forged, approvals: [forged] }] } },
      MERGE,
    ).then(expectStatus(200));
    const after = await shown(name);
    expect(approvedIn(after, 'prod')).toBe(false);
    expect(statusOf(after, 'prod')?.approvals).toBeUndefined();
  });

  it('deleting and re-creating the Rollout starts with no approvals: the gate is shut again', async () => {
    const name = await newRollout();
    await stagingPolicy(name, { count: 2 });
    await as('rollout-approver')('POST', routeOf(name, 'approve'), { stage: 'staging' }).then(expectStatus(200));
    await as('admin')('DELETE', rolloutPath(name)).then(expectStatus(200));
    await createRollout(platform, token('admin'), name);
    expect(await approversOf(name, 'staging')).toEqual([]);
    const one = await as('second-approver')('POST', routeOf(name, 'approve'), { stage: 'staging' }).then(
      expectStatus(200),
    );
    expect(approvedIn(one, 'staging')).toBe(false);
  });
});
