// Issue 45, build items 3 and 4, through the gateway on the emulator with the chart's CRDs: the Project's
// `spec.approvalPolicy` windows, freeze and soak times gate every path that approves a stage (the approve route, a
// spec write that approves) or starts an apply (`POST .../runs` and `POST .../runs/{plan}/apply`); a refusal is 409
// naming the window and when it opens; `override` (its own verb) lets an incident commander act anyway with a
// required reason, recorded in the audit trail and on the approval record. Windows are ranges around the test's
// own clock, and soak times are judged against approval timestamps the test writes: nothing waits on time.
import { beforeAll, describe, expect, it } from 'vitest';
import type { V1PolicyRule } from '@kubernetes/client-node';
import { OVERRIDE_REASON_ANNOTATION, APPROVER_ANNOTATION } from '../../../shared/domain/audit/audit-annotations.ts';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import { AuditCapture } from '../../support/audit-capture.ts';
import { TEST_NAMESPACE } from '../../support/identity-cluster.ts';
import { createRollout, rolloutObject, rolloutPath, useApprovalCallers } from '../../support/approval-callers.ts';
import {
  API,
  GROUP,
  TEAM_PROJECT,
  bindRole,
  callAs,
  expectStatus,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const audit = new AuditCapture();
const platform = usePlatform({}, { auditSinks: [audit] });
const tokenOf = useApprovalCallers(platform);
const admin = callAs(platform, 'admin');
const controller = callAs(platform, 'controller');
const PROJECT_PATH = `${API}/projects/${TEAM_PROJECT}`;
const RUNS = `/api/v1alpha1/projects/${TEAM_PROJECT}`;
const HOUR = 3_600_000;

// The incident commander: approves Rollouts and applies, and holds `override` on both (docs/resources.md).
const COMMANDER = 'incident-commander';
const COMMANDER_RULES: V1PolicyRule[] = [
  { apiGroups: [GROUP], resources: ['rollouts'], verbs: ['get', 'approve', 'override'] },
  { apiGroups: [GROUP], resources: ['workspaces/runs'], verbs: ['get', 'list', 'create', 'approve', 'override'] },
];
// Approves and starts applies, without `override`.
const RELEASER = 'releaser';
const RELEASER_RULES: V1PolicyRule[] = [
  { apiGroups: [GROUP], resources: ['rollouts'], verbs: ['get', 'approve'] },
  { apiGroups: [GROUP], resources: ['workspaces/runs'], verbs: ['get', 'list', 'create', 'approve'] },
];
const tokens = new Map<string, string>();
beforeAll(async () => {
  const { cluster } = platform();
  for (const [account, rules] of [
    [COMMANDER, COMMANDER_RULES],
    [RELEASER, RELEASER_RULES],
  ] as const) {
    await cluster.createServiceAccount(account);
    await bindRole(cluster, TEAM_PROJECT, account, [...rules], account);
    tokens.set(account, await cluster.mintToken(account));
  }
});
const as =
  (who: string) =>
  (method: string, path: string, body?: unknown, contentType?: string): Promise<Response> =>
    send(
      platform().gateway.url,
      who === 'admin' ? platform().tokens.admin : (tokens.get(who) ?? tokenOf(who as 'rollout-approver')),
      method,
      path,
      body,
      contentType,
    );

/** Replaces the Project's approval policy (as the admin, who may change it). */
async function setPolicy(policy: Record<string, unknown> | null): Promise<void> {
  await admin(
    'PATCH',
    PROJECT_PATH,
    { spec: { approvalPolicy: policy } },
    {
      'content-type': 'application/merge-patch+json',
    },
  ).then(expectStatus(200));
}
const everything = { rollouts: ['*'], applies: ['*'] };
const iso = (ms: number) => new Date(ms).toISOString();

type Rollout = PlatformObject & {
  spec: { stages: Array<{ workspace: string; approved?: boolean }> };
  status?: { stages?: Array<{ workspace: string; approval?: Record<string, unknown> }> };
};
const stored = async (name: string) => (await platform().clusterAdmin.find<Rollout>(rolloutPath(name)))!;
const approveRoute = (name: string) => `/api/v1alpha1/projects/${TEAM_PROJECT}/rollouts/${name}/approve`;
let rollouts = 0;
/** A Rollout created by the admin (the revision's author): staging, prod (gated), prod-eu (four eyes). */
async function newRollout(): Promise<string> {
  const name = `windows-${++rollouts}`;
  await createRollout(platform, platform().tokens.admin, name);
  return name;
}
let workspaces = 0;
/** A Workspace whose applies may start without a plan. */
async function newWorkspace(): Promise<string> {
  const name = `windows-ws-${++workspaces}`;
  await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject(name)).then(expectStatus(201));
  return name;
}
/** A succeeded plan run of `workspace`, started by the admin and finished by the controller. */
async function succeededPlan(workspace: string): Promise<string> {
  const run = await admin('POST', `${RUNS}/workspaces/${workspace}/runs`, { type: 'plan' }).then(expectStatus(201));
  const claimed = await controller('POST', '/internal/runs/claim', { project: TEAM_PROJECT, workspace }).then(
    expectStatus(200),
  );
  await controller('POST', `/internal/runs/${claimed.run.id}/phase`, {
    leaseId: claimed.lease.id,
    phase: 'Succeeded',
  }).then(expectStatus(200));
  return run.id;
}
const runsOf = async (workspace: string) =>
  (
    (await admin('GET', `${RUNS}/workspaces/${workspace}/runs`).then(expectStatus(200))).items as Array<{
      type: string;
    }>
  ).map((run) => run.type);

describe('Issue 45, item 3: a deny window refuses approve and apply, naming the window and when it opens', () => {
  it('the approve route, a merge patch that approves, an apply run and a plan approved for apply: 409 OutsideApprovalWindow with the window and its end; nothing changes', async () => {
    const end = iso(Date.now() + HOUR);
    await setPolicy({
      windows: [{ name: 'maintenance', kind: 'deny', start: iso(Date.now() - HOUR), end, appliesTo: everything }],
    });
    const rollout = await newRollout();
    const workspace = await newWorkspace();
    const plan = await succeededPlan(workspace);
    const before = await stored(rollout);
    const refusals = [
      await as('rollout-approver')('POST', approveRoute(rollout), { stage: 'prod' }),
      await as('rollout-approver')(
        'PATCH',
        rolloutPath(rollout),
        { spec: { stages: before.spec.stages.map((s) => (s.workspace === 'prod' ? { ...s, approved: true } : s)) } },
        'application/merge-patch+json',
      ),
      await as(RELEASER)('POST', `${RUNS}/workspaces/${workspace}/runs`, { type: 'apply' }),
      await as(RELEASER)('POST', `${RUNS}/runs/${plan}/apply`, {}),
    ];
    for (const refusal of refusals) {
      const body = await expectStatus(409)(refusal);
      expect(body.reason).toBe('OutsideApprovalWindow');
      expect(body.error).toContain('deny window "maintenance"');
      expect(body.error).toContain(`it opens at ${end}`);
    }
    expect(await stored(rollout)).toEqual(before);
    expect(await runsOf(workspace)).toEqual(['plan']);
  });

  it('a deny window for other Rollouts and Workspaces does not refuse these', async () => {
    await setPolicy({
      windows: [
        {
          name: 'elsewhere',
          kind: 'deny',
          start: iso(Date.now() - HOUR),
          end: iso(Date.now() + HOUR),
          appliesTo: { rollouts: ['another-rollout'], applies: ['another-workspace'] },
        },
      ],
    });
    const rollout = await newRollout();
    await as('rollout-approver')('POST', approveRoute(rollout), { stage: 'prod' }).then(expectStatus(200));
    await as(RELEASER)('POST', `${RUNS}/workspaces/${await newWorkspace()}/runs`, { type: 'apply' }).then(
      expectStatus(201),
    );
  });
});

describe('Issue 45, item 3: where an allow window applies, approvals and applies happen only inside it', () => {
  it('outside its hours: 409 naming the allow window and when it opens; inside: allowed', async () => {
    const opens = iso(Date.now() + HOUR);
    await setPolicy({
      windows: [
        { name: 'office-hours', kind: 'allow', start: opens, end: iso(Date.now() + 2 * HOUR), appliesTo: everything },
      ],
    });
    const rollout = await newRollout();
    const workspace = await newWorkspace();
    for (const refusal of [
      await as('rollout-approver')('POST', approveRoute(rollout), { stage: 'prod' }),
      await as(RELEASER)('POST', `${RUNS}/workspaces/${workspace}/runs`, { type: 'apply' }),
    ]) {
      const body = await expectStatus(409)(refusal);
      expect(body.reason).toBe('OutsideApprovalWindow');
      expect(body.error).toContain('allow window "office-hours"');
      expect(body.error).toContain(`it opens at ${opens}`);
    }
    await setPolicy({
      windows: [
        {
          name: 'office-hours',
          kind: 'allow',
          start: iso(Date.now() - HOUR),
          end: iso(Date.now() + HOUR),
          appliesTo: everything,
        },
      ],
    });
    await as('rollout-approver')('POST', approveRoute(rollout), { stage: 'prod' }).then(expectStatus(200));
    await as(RELEASER)('POST', `${RUNS}/workspaces/${workspace}/runs`, { type: 'apply' }).then(expectStatus(201));
  });
});

describe('Issue 45, item 3: a freeze stops the line; `override` with a reason lets an incident commander act anyway', () => {
  const FREEZE = { freeze: { active: true, reason: 'incident 4711', since: '2026-12-01T00:00:00Z' } };

  it('frozen: approve and apply are 409 ProjectFrozen, with the freeze reason', async () => {
    await setPolicy(FREEZE);
    const rollout = await newRollout();
    const workspace = await newWorkspace();
    for (const refusal of [
      await as('rollout-approver')('POST', approveRoute(rollout), { stage: 'prod' }),
      await as(RELEASER)('POST', `${RUNS}/workspaces/${workspace}/runs`, { type: 'apply' }),
    ]) {
      const body = await expectStatus(409)(refusal);
      expect(body.reason).toBe('ProjectFrozen');
      expect(body.error).toContain('incident 4711');
    }
  });

  it('every Rollout write that approves is refused while frozen: create, PUT, JSON patch, server-side apply', async () => {
    await setPolicy(FREEZE);
    const rollout = await newRollout();
    const before = await stored(rollout);
    const approvedStages = before.spec.stages.map((stage) =>
      stage.workspace === 'prod' ? { ...stage, approved: true } : stage,
    );
    const prodIndex = before.spec.stages.findIndex((stage) => stage.workspace === 'prod');
    const created = `${rollout}-created`;
    const writes = [
      await as('rollout-approver')('POST', `${API}/namespaces/${TEAM_PROJECT}/rollouts`, {
        ...rolloutObject(created),
        spec: { revision: 'r1', stages: approvedStages },
      }),
      await as('rollout-approver')('PUT', rolloutPath(rollout), {
        ...before,
        spec: { ...before.spec, stages: approvedStages },
      }),
      await as('rollout-approver')(
        'PATCH',
        rolloutPath(rollout),
        [{ op: 'replace', path: `/spec/stages/${prodIndex}/approved`, value: true }],
        'application/json-patch+json',
      ),
      await as('rollout-approver')(
        'PATCH',
        `${rolloutPath(rollout)}?fieldManager=windows-test`,
        JSON.stringify({ ...rolloutObject(rollout), spec: { revision: 'r1', stages: approvedStages } }),
        'application/apply-patch+yaml',
      ),
    ];
    for (const refusal of writes) expect((await expectStatus(409)(refusal)).reason).toBe('ProjectFrozen');
    expect(await stored(rollout)).toEqual(before);
    expect(await platform().clusterAdmin.find(rolloutPath(created))).toBeUndefined();
  });

  it('with the permission and a reason: allowed, audited with both principals, and on the approval record', async () => {
    await setPolicy(FREEZE);
    const rollout = await newRollout();
    const reason = 'hotfix for incident 4711';
    const approved = await as(COMMANDER)('POST', approveRoute(rollout), { stage: 'prod', override: { reason } });
    const event = audit.completed(approved);
    await expectStatus(200)(approved);
    const commander = `system:serviceaccount:${TEST_NAMESPACE}:${COMMANDER}`;
    expect(event.annotations).toMatchObject({
      [OVERRIDE_REASON_ANNOTATION]: reason,
      [APPROVER_ANNOTATION]: commander,
      'platform-api/author': 'admin',
      'platform-api/overridden': expect.stringContaining('ProjectFrozen'),
    });
    const record = (await stored(rollout)).status?.stages?.find((stage) => stage.workspace === 'prod')?.approval;
    expect(record).toMatchObject({ approvedBy: commander, override: { reason, overrode: 'ProjectFrozen' } });

    const workspace = await newWorkspace();
    const started = await as(COMMANDER)('POST', `${RUNS}/workspaces/${workspace}/runs`, {
      type: 'apply',
      override: { reason },
    });
    expect(audit.completed(started).annotations).toMatchObject({ [OVERRIDE_REASON_ANNOTATION]: reason });
    const startedRun = await expectStatus(201)(started);
    // The apply run above waits for the controller: the plan is of a Workspace of its own.
    const plan = await succeededPlan(await newWorkspace());
    const applied = await as(COMMANDER)('POST', `${RUNS}/runs/${plan}/apply`, { override: { reason } });
    expect(audit.completed(applied).annotations).toMatchObject({
      [OVERRIDE_REASON_ANNOTATION]: reason,
      'platform-api/overridden': expect.stringContaining('ProjectFrozen'),
      [APPROVER_ANNOTATION]: commander,
      'platform-api/author': 'admin',
    });
    const appliedRun = await expectStatus(201)(applied);

    // Issue 45, item 5: the override is recorded on the run it let through, in the run's JSON as every route answers it.
    const recorded = { by: commander, reason, overrode: 'ProjectFrozen' };
    for (const run of [startedRun, appliedRun]) {
      expect(run.override).toEqual(recorded);
      expect((await admin('GET', `${RUNS}/runs/${run.id}`).then(expectStatus(200))).override).toEqual(recorded);
    }
    const listed = (await admin('GET', `${RUNS}/workspaces/${workspace}/runs`).then(expectStatus(200))).items;
    expect(listed.find((run: { id: string }) => run.id === startedRun.id).override).toEqual(recorded);
    // The plan run, which nothing overrode, has none.
    expect((await admin('GET', `${RUNS}/runs/${plan}`).then(expectStatus(200))).override).toBeUndefined();
  });

  it('an override sent when no gate refuses is audited but not recorded on the run: nothing was overridden', async () => {
    await setPolicy(null);
    const started = await as(COMMANDER)('POST', `${RUNS}/workspaces/${await newWorkspace()}/runs`, {
      type: 'apply',
      override: { reason: 'just in case' },
    });
    expect(audit.completed(started).annotations).toMatchObject({ [OVERRIDE_REASON_ANNOTATION]: 'just in case' });
    expect(audit.completed(started).annotations?.['platform-api/overridden']).toBeUndefined();
    expect((await expectStatus(201)(started)).override).toBeUndefined();
  });

  it('an override without the `override` permission: 403 naming the verb, and nothing changes', async () => {
    await setPolicy(FREEZE);
    const rollout = await newRollout();
    const before = await stored(rollout);
    const workspace = await newWorkspace();
    for (const refusal of [
      await as(RELEASER)('POST', approveRoute(rollout), { stage: 'prod', override: { reason: 'because' } }),
      await as(RELEASER)('POST', `${RUNS}/workspaces/${workspace}/runs`, {
        type: 'apply',
        override: { reason: 'because' },
      }),
    ]) {
      const body = await expectStatus(403)(refusal);
      expect(body.error).toContain('may not override');
    }
    expect(await stored(rollout)).toEqual(before);
    expect(await runsOf(workspace)).toEqual([]);
  });

  it('an override without a reason: 400, even for the incident commander', async () => {
    await setPolicy(FREEZE);
    const rollout = await newRollout();
    await as(COMMANDER)('POST', approveRoute(rollout), { stage: 'prod', override: {} }).then(expectStatus(400));
    await as(COMMANDER)('POST', approveRoute(rollout), { stage: 'prod', override: { reason: '' } }).then(
      expectStatus(400),
    );
    await as(COMMANDER)('POST', `${RUNS}/workspaces/${await newWorkspace()}/runs`, {
      type: 'apply',
      override: {},
    }).then(expectStatus(400));
  });
});

describe('Issue 45, item 4: a stage may be approved only once the stage before it has soaked for its soakTime', () => {
  /** Writes the approval record of `stage` as approved `ago` ms before now, as the server would have recorded it. */
  async function approvedAgo(rollout: string, stage: string, ago: number) {
    const current = await stored(rollout);
    const stages = (current.status?.stages ?? []).map((entry) =>
      entry.workspace === stage
        ? { ...entry, approval: { ...entry.approval, approvedAt: iso(Date.now() - ago) } }
        : entry,
    );
    await platform().clusterAdmin.send({
      method: 'PATCH',
      path: `${rolloutPath(rollout)}/status`,
      body: { status: { stages } },
      contentType: 'application/merge-patch+json',
    });
  }

  it('not elapsed: 409 SoakTimeNotElapsed with when it opens; elapsed: approved', async () => {
    await setPolicy(null);
    const rollout = await newRollout();
    await setPolicy({ stages: [{ rollout, stage: 'prod-eu', soakTime: '2h' }] });
    await as('rollout-approver')('POST', approveRoute(rollout), { stage: 'prod' }).then(expectStatus(200));
    await approvedAgo(rollout, 'prod', HOUR);
    const approvedAt = (await stored(rollout)).status!.stages!.find((s) => s.workspace === 'prod')!.approval!
      .approvedAt as string;
    const refused = await as('rollout-approver')('POST', approveRoute(rollout), { stage: 'prod-eu' }).then(
      expectStatus(409),
    );
    expect(refused.reason).toBe('SoakTimeNotElapsed');
    expect(refused.error).toContain(`it opens at ${iso(Date.parse(approvedAt) + 2 * HOUR)}`);

    await approvedAgo(rollout, 'prod', 3 * HOUR);
    await as('rollout-approver')('POST', approveRoute(rollout), { stage: 'prod-eu' }).then(expectStatus(200));
  });
});
