// Issue 45, "Show": a matrix of approval policies against every write path that approves a stage or starts an
// apply, as a user and as the admin (who gets no bypass except through `override`). Each row of POLICIES is a
// Project policy (spec.approvalPolicy), built over the row's own Rollouts and Workspaces, with what it answers on
// each path; each cell makes its own Rollout (or Workspace and plan) as the caller (so the caller is the author
// of the revision and of the plan), tries the path, and checks the answer and that nothing happened unless it was
// let through. Windows are ranges around the test's clock and soak times count from the revision just written:
// nothing waits on time. To add a policy, add a row (its policy and its expected answer per path).
//
// The paths: the approve route; `kubectl patch` of the Rollout's spec (a merge patch setting `approved`) and of its
// status (a forged approval record: the server keeps its own records, so the stage is never approved this way);
// server-side apply of the Rollout; the plan approve route (`POST .../runs/{plan}/apply`); starting an apply
// (`POST .../workspaces/{w}/runs`); turning a Workspace's `autoApply` on. An auto-apply itself is carried out by
// the workspace controller, which reads the Project (docs/resources.md "Approvals"): the server's part is the
// write that turns it on, which needs `approve` (a writer without it: approval-policy.test.ts) and no time gate.
import { beforeAll, describe, expect, it } from 'vitest';
import type { V1PolicyRule } from '@kubernetes/client-node';
import { TEST_NAMESPACE } from '../../support/identity-cluster.ts';
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

const platform = usePlatform();
const admin = callAs(platform, 'admin');
const controller = callAs(platform, 'controller');
const RUNS = `/api/v1alpha1/projects/${TEAM_PROJECT}`;
const ROLLOUTS = `${API}/namespaces/${TEAM_PROJECT}/rollouts`;
const HOUR = 3_600_000;
const REASON = 'incident 4711: the fix must ship now';

// The user: writes and approves Rollouts and applies in TEAM_PROJECT, without `override`; the incident commander
// has `override` too.
const USER_RULES: V1PolicyRule[] = [
  { apiGroups: [GROUP], resources: ['rollouts'], verbs: ['get', 'list', 'create', 'update', 'patch', 'approve'] },
  { apiGroups: [GROUP], resources: ['rollouts/status'], verbs: ['get', 'update', 'patch'] },
  { apiGroups: [GROUP], resources: ['workspaces'], verbs: ['get', 'list', 'create', 'update', 'patch'] },
  { apiGroups: [GROUP], resources: ['workspaces/runs'], verbs: ['get', 'list', 'create', 'approve'] },
];
const COMMANDER_RULES: V1PolicyRule[] = [
  ...USER_RULES,
  { apiGroups: [GROUP], resources: ['rollouts', 'workspaces/runs'], verbs: ['override'] },
];
const tokens = new Map<string, string>();
beforeAll(async () => {
  const { cluster } = platform();
  for (const [account, rules] of [
    ['matrix-user', USER_RULES],
    ['matrix-commander', COMMANDER_RULES],
  ] as const) {
    await cluster.createServiceAccount(account);
    await bindRole(cluster, TEAM_PROJECT, account, [...rules], account);
    tokens.set(account, await cluster.mintToken(account));
  }
});

/** Who acts in a cell: a user (the incident commander in a row that overrides) or the admin. */
type Who = 'user' | 'admin';
const PRINCIPALS: Who[] = ['user', 'admin'];

/** The paths, each a cell's attempt and what it would have done had it been let through. */
type Path =
  | 'approveRoute'
  | 'specPatch'
  | 'statusPatch'
  | 'serverSideApply'
  | 'planApprove'
  | 'startApply'
  | 'autoApply';
const PROMOTIONS: Path[] = ['approveRoute', 'specPatch', 'statusPatch', 'serverSideApply'];
const APPLIES: Path[] = ['planApprove', 'startApply', 'autoApply'];
/** The paths that record a run (201); the others answer the object (200). */
const RECORDS_A_RUN: Path[] = ['planApprove', 'startApply'];

/**
 * A cell's answer: the status and, on a refusal, its reason; `ignored`: 200, and the stage is not approved;
 * `recorded`: the caller's approval is recorded and the stage stays shut, or no apply starts (it needs more
 * approvers): 200 with the Rollout, or 202 with the plan run.
 */
type Outcome = { status: 200 | 201 } | { status: 409; reason: string } | 'ignored' | 'recorded';
const allowed = (path: Path): Outcome => ({ status: RECORDS_A_RUN.includes(path) ? 201 : 200 });
const refused = (reason: string): Outcome => ({ status: 409, reason });

/** What one row's cells are made of: its Rollouts (by path and principal) and its Workspaces. */
interface RowFixtures {
  rollouts: string[];
  workspaces: string[];
}

interface PolicyRow {
  name: string;
  /** The Project's spec.approvalPolicy over the row's own objects. */
  policy(fixtures: RowFixtures, now: number): Record<string, unknown> | null;
  /** Whether the row's callers send `{"override": {"reason"}}` (and the user is the incident commander). */
  override?: boolean;
  /** The answer on each path (the same for the user and the admin: nobody bypasses a gate). */
  expected: Record<Path, Outcome>;
}

/** Every path answers as if there were no gate, but a status patch, which never approves. */
const letThrough = (): Record<Path, Outcome> =>
  Object.fromEntries(
    [...PROMOTIONS, ...APPLIES].map((path) => [path, path === 'statusPatch' ? 'ignored' : allowed(path)]),
  ) as Record<Path, Outcome>;
const everything = { rollouts: ['*'], applies: ['*'] };
const iso = (ms: number) => new Date(ms).toISOString();

const POLICIES: PolicyRow[] = [
  { name: 'no policy (the baseline: every path can approve)', policy: () => null, expected: letThrough() },
  {
    name: 'four eyes on the stage and on the applies, against the author of the revision and of the plan',
    policy: ({ rollouts, workspaces }) => ({
      stages: rollouts.map((rollout) => ({ rollout, stage: 'prod', approvals: { distinctFromAuthor: true } })),
      applies: workspaces.map((workspace) => ({ workspace, approvals: { distinctFromAuthor: true } })),
    }),
    expected: {
      ...letThrough(),
      approveRoute: refused('ApproverIsAuthor'),
      specPatch: refused('ApproverIsAuthor'),
      serverSideApply: refused('ApproverIsAuthor'),
      planApprove: refused('ApproverIsAuthor'),
      // The policy gates the Workspace's applies: only approved plans.
      startApply: refused('ApplyNeedsPlan'),
    },
  },
  {
    name: 'a deny window open now',
    policy: (_fixtures, now) => ({
      windows: [
        { name: 'change-freeze', kind: 'deny', start: iso(now - HOUR), end: iso(now + HOUR), appliesTo: everything },
      ],
    }),
    expected: timeGated('OutsideApprovalWindow'),
  },
  {
    name: 'an allow window that opens in an hour',
    policy: (_fixtures, now) => ({
      windows: [
        {
          name: 'release-train',
          kind: 'allow',
          start: iso(now + HOUR),
          end: iso(now + 2 * HOUR),
          appliesTo: everything,
        },
      ],
    }),
    expected: timeGated('OutsideApprovalWindow'),
  },
  {
    name: 'an allow window open now',
    policy: (_fixtures, now) => ({
      windows: [
        { name: 'release-train', kind: 'allow', start: iso(now - HOUR), end: iso(now + HOUR), appliesTo: everything },
      ],
    }),
    expected: letThrough(),
  },
  { name: 'a freeze, without override', policy: () => ({ freeze: FREEZE }), expected: timeGated('ProjectFrozen') },
  {
    name: 'a freeze, with override (the routes that take one let it through; Rollout writes carry none)',
    policy: () => ({ freeze: FREEZE }),
    override: true,
    expected: { ...timeGated('ProjectFrozen'), approveRoute: allowed('approveRoute'), ...appliesAllowed() },
  },
  {
    name: 'two approvers on the stage and on the applies (issue 45 item 2): one approval is recorded, the stage stays shut and no apply starts',
    policy: ({ rollouts, workspaces }) => ({
      stages: rollouts.map((rollout) => ({ rollout, stage: 'prod', approvals: { count: 2 } })),
      applies: workspaces.map((workspace) => ({ workspace, approvals: { count: 2 } })),
    }),
    expected: { ...letThrough(), ...promotionsRecorded(), ...appliesRecorded() },
  },
  {
    name: 'an approver from a required group on the stage and on the applies (issue 45 item 2), the caller in none: recorded, still shut',
    policy: ({ rollouts, workspaces }) => ({
      stages: rollouts.map((rollout) => ({ rollout, stage: 'prod', approvals: { groups: ['oidc:sre'] } })),
      applies: workspaces.map((workspace) => ({ workspace, approvals: { groups: ['oidc:sre'] } })),
    }),
    expected: { ...letThrough(), ...promotionsRecorded(), ...appliesRecorded() },
  },
  {
    name: 'a soak time of 2h on the stage after an ungated one, whose revision was written just now',
    policy: ({ rollouts }) => ({ stages: rollouts.map((rollout) => ({ rollout, stage: 'prod', soakTime: '2h' })) }),
    expected: { ...letThrough(), ...promotionsRefused('SoakTimeNotElapsed') },
  },
];

function timeGated(reason: string): Record<Path, Outcome> {
  return {
    ...letThrough(),
    ...promotionsRefused(reason),
    planApprove: refused(reason),
    startApply: refused(reason),
  };
}
function promotionsRefused(reason: string): Partial<Record<Path, Outcome>> {
  return {
    approveRoute: refused(reason),
    specPatch: refused(reason),
    statusPatch: 'ignored',
    serverSideApply: refused(reason),
  };
}
function promotionsRecorded(): Partial<Record<Path, Outcome>> {
  return { approveRoute: 'recorded', specPatch: 'recorded', statusPatch: 'ignored', serverSideApply: 'recorded' };
}
/** A policy that gates the applies with more than the caller's approval: recorded, no apply; only plans apply. */
function appliesRecorded(): Partial<Record<Path, Outcome>> {
  return { planApprove: 'recorded', startApply: refused('ApplyNeedsPlan') };
}
function appliesAllowed(): Pick<Record<Path, Outcome>, 'planApprove' | 'startApply'> {
  return { planApprove: allowed('planApprove'), startApply: allowed('startApply') };
}
const FREEZE = { active: true, reason: 'incident 4711', since: '2026-12-01T00:00:00Z' };

/** The Rollouts the cells approve: `staging` ungated, then `prod`, which needs an approval. */
const STAGES = [{ workspace: 'staging' }, { workspace: 'prod', approval: { required: true } }];
const rolloutObject = (name: string, stages: unknown[] = STAGES) => ({
  apiVersion: `${GROUP}/v1alpha1`,
  kind: 'Rollout',
  metadata: { name },
  spec: { revision: 'r1', stages },
});
const approvedStages = STAGES.map((stage) => (stage.workspace === 'prod' ? { ...stage, approved: true } : stage));

let cells = 0;
/** One cell's objects, made by its caller: the Rollout (a promotion) or the Workspace and its plan (an apply). */
interface Cell {
  who: Who;
  path: Path;
  token: string;
  /** The principal as runs and records name it. */
  principal: string;
  rollout: string;
  workspace: string;
  plan?: string;
}

async function makeCell(who: Who, path: Path, override: boolean): Promise<Cell> {
  const account = override ? 'matrix-commander' : 'matrix-user';
  const token = who === 'admin' ? platform().tokens.admin : tokens.get(account)!;
  const principal = who === 'admin' ? 'admin' : `system:serviceaccount:${TEST_NAMESPACE}:${account}`;
  const id = ++cells;
  const cell: Cell = { who, path, token, principal, rollout: `matrix-${id}`, workspace: `matrix-ws-${id}` };
  const workspace = workspaceObject(cell.workspace) as { spec: Record<string, unknown> };
  // The autoApply cell turns on a gate that is on: its Workspace starts with none turned off.
  if (path === 'autoApply') workspace.spec.allowApplyWithoutPlan = false;
  const as = (method: string, url: string, body?: unknown) =>
    send(platform().gateway.url, token, method, url, body).then(expectStatus(201));
  if (PROMOTIONS.includes(path)) await as('POST', ROLLOUTS, rolloutObject(cell.rollout));
  else {
    await as('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspace);
    if (path === 'planApprove') {
      const plan = await as('POST', `${RUNS}/workspaces/${cell.workspace}/runs`, { type: 'plan' });
      const claimed = await controller('POST', '/internal/runs/claim', {
        project: TEAM_PROJECT,
        workspace: cell.workspace,
      }).then(expectStatus(200));
      await controller('POST', `/internal/runs/${claimed.run.id}/phase`, {
        leaseId: claimed.lease.id,
        phase: 'Succeeded',
      }).then(expectStatus(200));
      cell.plan = plan.id;
    }
  }
  return cell;
}

/** The cell's attempt on its path, as its caller, with the row's override on the routes that take one. */
function attempt(cell: Cell, override: boolean): Promise<Response> {
  const body = override ? { override: { reason: REASON } } : {};
  const as = (method: string, url: string, sent: unknown, contentType?: string) =>
    send(platform().gateway.url, cell.token, method, url, sent, contentType);
  const rolloutPath = `${ROLLOUTS}/${cell.rollout}`;
  switch (cell.path) {
    case 'approveRoute':
      return as('POST', `${RUNS}/rollouts/${cell.rollout}/approve`, { stage: 'prod', ...body });
    case 'specPatch':
      return as('PATCH', rolloutPath, { spec: { stages: approvedStages } }, 'application/merge-patch+json');
    case 'statusPatch':
      return as(
        'PATCH',
        `${rolloutPath}/status`,
        {
          status: {
            stages: [
              {
                workspace: 'prod',
                approval: { approvedBy: cell.principal, approvedAt: iso(Date.now()), revision: 'r1' },
              },
            ],
          },
        },
        'application/merge-patch+json',
      );
    case 'serverSideApply':
      return as(
        'PATCH',
        `${rolloutPath}?fieldManager=policy-matrix`,
        JSON.stringify(rolloutObject(cell.rollout, approvedStages)),
        'application/apply-patch+yaml',
      );
    case 'planApprove':
      return as('POST', `${RUNS}/runs/${cell.plan}/apply`, body);
    case 'startApply':
      return as('POST', `${RUNS}/workspaces/${cell.workspace}/runs`, { type: 'apply', ...body });
    case 'autoApply':
      return as(
        'PATCH',
        `${API}/namespaces/${TEAM_PROJECT}/workspaces/${cell.workspace}`,
        { spec: { autoApply: true } },
        'application/merge-patch+json',
      );
  }
}

/**
 * What the cell's path did: whether `prod` is approved (with its gate's record) and who has approved it, or the
 * apply runs of the Workspace.
 */
async function effect(
  cell: Cell,
): Promise<
  | { approved: boolean; approvers: string[]; record?: Record<string, unknown> }
  | { applies: unknown[]; approvers?: string[] }
  | { autoApply: boolean }
> {
  if (PROMOTIONS.includes(cell.path)) {
    const rollout = await admin('GET', `${ROLLOUTS}/${cell.rollout}`).then(expectStatus(200));
    const prod = rollout.spec.stages.find((stage: { workspace: string }) => stage.workspace === 'prod');
    const observed = rollout.status?.stages?.find((stage: { workspace: string }) => stage.workspace === 'prod');
    const approvers = (observed?.approvals ?? []).map((approval: { approvedBy: string }) => approval.approvedBy);
    const record = observed?.approval;
    return { approved: prod.approved === true, approvers, ...(record ? { record } : {}) };
  }
  if (cell.path === 'autoApply') {
    const workspace = await admin('GET', `${API}/namespaces/${TEAM_PROJECT}/workspaces/${cell.workspace}`).then(
      expectStatus(200),
    );
    return { autoApply: workspace.spec.autoApply === true };
  }
  const runs = await admin('GET', `${RUNS}/workspaces/${cell.workspace}/runs`).then(expectStatus(200));
  const applies = runs.items.filter((run: { type: string }) => run.type === 'apply');
  if (!cell.plan) return { applies };
  // The plan's approvals so far, as its run answer states them (issue 45 item 2).
  const plan = runs.items.find((run: { id: string }) => run.id === cell.plan);
  return {
    applies,
    approvers: plan.planApproval.approvals.map((approval: { approvedBy: string }) => approval.approvedBy),
  };
}

for (const row of POLICIES) {
  describe(`Issue 45, the policy matrix: ${row.name}`, () => {
    const made = new Map<string, Cell>();
    const key = (who: Who, path: Path) => `${who}/${path}`;
    beforeAll(async () => {
      for (const who of PRINCIPALS)
        for (const path of [...PROMOTIONS, ...APPLIES])
          made.set(key(who, path), await makeCell(who, path, row.override === true));
      const cellsMade = [...made.values()];
      const policy = row.policy(
        {
          rollouts: cellsMade.filter((cell) => PROMOTIONS.includes(cell.path)).map((cell) => cell.rollout),
          workspaces: cellsMade.filter((cell) => APPLIES.includes(cell.path)).map((cell) => cell.workspace),
        },
        Date.now(),
      );
      // A merge patch merges into the policy there: the previous row's is removed first.
      for (const approvalPolicy of [null, policy])
        await admin(
          'PATCH',
          `${API}/projects/${TEAM_PROJECT}`,
          { spec: { approvalPolicy } },
          { 'content-type': 'application/merge-patch+json' },
        ).then(expectStatus(200));
    });

    for (const who of PRINCIPALS)
      for (const path of [...PROMOTIONS, ...APPLIES]) {
        const expected = row.expected[path];
        const shown =
          expected === 'ignored'
            ? 'is ignored'
            : expected === 'recorded'
              ? path === 'planApprove'
                ? 'records the approval (202) and starts no apply'
                : 'records the approval and keeps the stage shut'
              : 'reason' in expected
                ? `is ${expected.status} ${expected.reason}`
                : `lets it through (${expected.status})`;
        it(`${path} as ${who === 'admin' ? 'the admin' : row.override ? 'the incident commander' : 'a user'} ${shown}`, async () => {
          const cell = made.get(key(who, path))!;
          const before = await effect(cell);
          const answer = await attempt(cell, row.override === true);
          const after = await effect(cell);
          if (expected === 'ignored') {
            await expectStatus(200)(answer);
            expect(after).toEqual(before);
            expect(after).toMatchObject({ approved: false });
            return;
          }
          if (expected === 'recorded') {
            if (cell.path === 'planApprove') {
              expect((await expectStatus(202)(answer)).id).toBe(cell.plan);
              expect(after).toEqual({ applies: [], approvers: [cell.principal] });
              return;
            }
            await expectStatus(200)(answer);
            expect(after).toEqual({ approved: false, approvers: [cell.principal] });
            return;
          }
          const body = await expectStatus(expected.status)(answer);
          if ('reason' in expected) {
            expect(body.reason).toBe(expected.reason);
            expect(after).toEqual(before);
            return;
          }
          if ('autoApply' in after) expect(after.autoApply).toBe(true);
          else if ('applies' in after) {
            expect(after.applies).toHaveLength(1);
            expect(after.applies[0]).toMatchObject({
              principal: cell.principal,
              ...(row.override ? { override: { by: cell.principal, reason: REASON, overrode: 'ProjectFrozen' } } : {}),
            });
          } else {
            expect(after).toMatchObject({ approved: true, record: { approvedBy: cell.principal } });
            if (row.override)
              expect(after.record).toMatchObject({ override: { reason: REASON, overrode: 'ProjectFrozen' } });
          }
        });
      }
  });
}
