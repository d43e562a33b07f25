// Issue 37, build item 3 ("apply what was reviewed"), at the store: approving a succeeded plan run records an
// apply run bound to it, handed to the controller on claim; a stale plan (superseded by a newer plan or apply of
// its Workspace, or older than the limit) and anything but a succeeded plan are refused, and nothing is recorded.
import { describe, expect, it } from 'vitest';
import {
  NotASucceededPlanError,
  PlanStaleError,
  PlanWorkspaceChangedError,
  RunNotFoundError,
} from '../../../shared/domain/runs/run-errors.ts';
import type { LeaseHolder } from '../../../shared/domain/runs/leases/run-leases.ts';
import type { RunType } from '../../../shared/domain/runs/run.ts';
import type { PlanBinding } from '../../../shared/domain/approvals/plan-binding.ts';
import { useRunStore } from '../../support/run-store-fixture.ts';

const { database, store } = useRunStore();
const PROJECT = 'plans';
const CONTROLLER: LeaseHolder = {
  principal: 'system:serviceaccount:platform:controller',
  principalType: 'serviceaccount',
};
const DAY_MS = 24 * 3_600_000;
const AUTHOR = { principal: 'alice@example.com', principalType: 'oidc' as const };
const APPROVER = { principal: 'bob@example.com', principalType: 'oidc' as const };

/** What every plan here is planned for, and what its Workspace still is when approved (issue 45). */
const PLANNED_FOR: PlanBinding = { workspace: { uid: 'w-1', generation: 1 }, variableSets: [] };

const start = (workspace: string, type: RunType = 'plan') =>
  store().records.createRun({
    project: PROJECT,
    workspace,
    type,
    ...AUTHOR,
    ...(type === 'plan' ? { plannedFor: PLANNED_FOR } : {}),
  });

/** A run of `workspace` taken through the controller to `phase`. */
async function finished(workspace: string, phase: 'Succeeded' | 'Failed' = 'Succeeded', type: RunType = 'plan') {
  const run = await start(workspace, type);
  const claimed = await store().leases.claim(CONTROLLER, 60_000, { project: PROJECT, workspace });
  expect(claimed!.run.id).toBe(run.id);
  return store().leases.finish(run.id, claimed!.lease.id, CONTROLLER, phase);
}

/** One approval, which (no policy: one approval from anybody) starts the apply run: that run. */
const approve = async (planRun: string, maxAgeMs = DAY_MS, message?: string) =>
  (
    await store().planApprovals.approveForApply({
      project: PROJECT,
      planRun,
      ...APPROVER,
      maxAgeMs,
      workspace: PLANNED_FOR,
      ...(message !== undefined ? { message } : {}),
    })
  ).apply!;

const runsOf = async (workspace: string) =>
  (await store().records.listRuns({ project: PROJECT, workspace, limit: 50 })).items.map(
    (run) => `${run.type}:${run.phase}`,
  );

describe('issue 37: a succeeded plan approved for apply becomes a Pending apply run bound to it, started by the approver', () => {
  it('records the apply with planRun, the approver as principal and the message; the plan stays as it was', async () => {
    const plan = await finished('bound');
    const apply = await approve(plan.id, DAY_MS, 'reviewed in CAB-12');
    expect(apply).toMatchObject({
      workspace: 'bound',
      type: 'apply',
      phase: 'Pending',
      principal: APPROVER.principal,
      principalType: 'oidc',
      message: 'reviewed in CAB-12',
      planRun: plan.id,
    });
    expect(await store().records.getRun(PROJECT, apply.id)).toEqual(apply);
    expect((await store().records.getRun(PROJECT, plan.id)).planRun).toBeNull();
  });

  it('the controller is handed the plan id with the run it claims', async () => {
    const plan = await finished('claimed');
    const apply = await approve(plan.id);
    const claimed = await store().leases.claim(CONTROLLER, 60_000, { project: PROJECT, workspace: 'claimed' });
    expect(claimed!.run).toMatchObject({ id: apply.id, type: 'apply', planRun: plan.id });
  });

  it('runs started otherwise have no plan', async () => {
    expect((await start('unbound', 'apply')).planRun).toBeNull();
    expect((await start('unbound', 'plan')).planRun).toBeNull();
  });

  it('the database refuses a plan on anything but an apply run', async () => {
    const plan = await finished('checked');
    await expect(
      database().pool.query("UPDATE runs SET plan_run = $1 WHERE id = $1 AND type = 'plan'", [plan.id]),
    ).rejects.toThrow(/runs_plan_run_only_on_apply/);
  });
});

describe('issue 37: a stale plan is refused (409 PlanStale), and nothing is recorded', () => {
  it('a plan applied once: the second approval is refused, superseded by the first apply', async () => {
    const plan = await finished('once');
    const first = await approve(plan.id);
    const again = await approve(plan.id).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(PlanStaleError);
    expect((again as PlanStaleError).message).toContain(`a newer apply run (${first.id})`);
    expect(await runsOf('once')).toEqual(['apply:Pending', 'plan:Succeeded']);
  });

  it('approvals of one plan racing from several instances: exactly one apply is recorded', async () => {
    const plan = await finished('racing');
    // Another instance is busy with the plan: the approvals all arrive while its row is locked, then race.
    const other = await database().pool.connect();
    await other.query('BEGIN');
    await other.query('SELECT 1 FROM runs WHERE id = $1 FOR UPDATE', [plan.id]);
    let settled = 0;
    const racing = Promise.allSettled(Array.from({ length: 4 }, () => approve(plan.id).finally(() => settled++)));
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Each waits for the plan's row lock, so none can decide on what another has not committed yet.
      expect(settled).toBe(0);
    } finally {
      await other.query('COMMIT');
      other.release();
    }
    const results = await racing;
    const applied = results.filter((result) => result.status === 'fulfilled');
    const refused = results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    expect(applied).toHaveLength(1);
    expect(refused).toHaveLength(3);
    for (const reason of refused) expect(reason).toBeInstanceOf(PlanStaleError);
    expect(await runsOf('racing')).toEqual(['apply:Pending', 'plan:Succeeded']);
  });

  it('Issue 45, item 2: four approvers racing where two are needed: one waits for more, one starts the only apply, two find it (PlanStale)', async () => {
    const plan = await finished('racing-pair');
    const outcomes = await Promise.allSettled(
      ['carol', 'dave', 'erin', 'frank'].map((name) =>
        store().planApprovals.approveForApply({
          project: PROJECT,
          planRun: plan.id,
          principal: `${name}@example.com`,
          principalType: 'oidc',
          maxAgeMs: DAY_MS,
          workspace: PLANNED_FOR,
          requirement: { count: 2, groups: [], distinctFromAuthor: false },
        }),
      ),
    );
    const given = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    expect(given.filter((outcome) => outcome.apply !== null)).toHaveLength(1);
    expect(given.filter((outcome) => outcome.apply === null).map((outcome) => outcome.stillNeeded)).toEqual([
      { approvers: 1, groups: [] },
    ]);
    for (const outcome of outcomes.filter((outcome) => outcome.status === 'rejected'))
      expect(outcome.reason).toBeInstanceOf(PlanStaleError);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(2);
    expect(await runsOf('racing-pair')).toEqual(['apply:Pending', 'plan:Succeeded']);
    const { rows } = await database().pool.query('SELECT count(*)::int AS n FROM plan_approvals WHERE plan_run = $1', [
      plan.id,
    ]);
    expect(rows[0].n).toBe(2);
  });

  it('Issue 45, item 2: the approvals of a plan are removed with its run (run history retention deletes the run)', async () => {
    const plan = await finished('removed-with-plan');
    await approve(plan.id);
    await database().pool.query('DELETE FROM runs WHERE id = $1', [plan.id]);
    const { rows } = await database().pool.query('SELECT count(*)::int AS n FROM plan_approvals WHERE plan_run = $1', [
      plan.id,
    ]);
    expect(rows[0].n).toBe(0);
  });

  it('a newer plan of the Workspace, even one still pending, supersedes the reviewed one', async () => {
    const plan = await finished('superseded');
    const newer = await start('superseded', 'plan');
    await expect(approve(plan.id)).rejects.toThrow(`a newer plan run (${newer.id}) of workspace "superseded" exists`);
    expect(await runsOf('superseded')).toEqual(['plan:Pending', 'plan:Succeeded']);
  });

  it('an apply of the Workspace started after the plan supersedes it too', async () => {
    const plan = await finished('applied-meanwhile');
    await start('applied-meanwhile', 'apply');
    await expect(approve(plan.id)).rejects.toBeInstanceOf(PlanStaleError);
  });

  it("another Workspace's newer runs do not: staleness is per Workspace", async () => {
    const plan = await finished('left-alone');
    await start('next-door', 'plan');
    expect((await approve(plan.id)).planRun).toBe(plan.id);
  });

  it('a plan that finished longer ago than the limit is refused; within it, approved', async () => {
    const plan = await finished('aged');
    await database().pool.query("UPDATE runs SET finished_at = now() - interval '25 hours' WHERE id = $1", [plan.id]);
    const refused = await approve(plan.id).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PlanStaleError);
    expect((refused as Error).message).toMatch(/longer ago than PLAN_APPROVAL_MAX_AGE allows/);
    expect(await runsOf('aged')).toEqual(['plan:Succeeded']);
    expect((await approve(plan.id, 26 * 3_600_000)).planRun).toBe(plan.id);
  });
});

describe('issue 37: only a succeeded plan run can be approved for apply (409 NotASucceededPlan)', () => {
  it.each([
    ['a Pending plan', async () => start('not-yet')],
    ['a Failed plan', async () => finished('failed', 'Failed')],
    ['a succeeded apply', async () => finished('an-apply', 'Succeeded', 'apply')],
  ])('%s is refused and nothing is recorded', async (_case, make) => {
    const run = await make();
    await expect(approve(run.id)).rejects.toBeInstanceOf(NotASucceededPlanError);
    expect(await runsOf(run.workspace)).toHaveLength(1);
  });

  it('an unknown run, or one of another Project, is RunNotFound', async () => {
    const plan = await finished('elsewhere');
    await expect(approve('0190f4c8-0000-7000-8000-000000000000')).rejects.toBeInstanceOf(RunNotFoundError);
    await expect(
      store().planApprovals.approveForApply({
        project: 'other',
        planRun: plan.id,
        ...APPROVER,
        maxAgeMs: DAY_MS,
        workspace: PLANNED_FOR,
      }),
    ).rejects.toBeInstanceOf(RunNotFoundError);
  });
});

describe('Issue 45, item 1: a plan is applied only to the Workspace object and spec it was planned for (409 PlanWorkspaceChanged)', () => {
  const approveFor = (planRun: string, workspace: PlanBinding) =>
    store().planApprovals.approveForApply({ project: PROJECT, planRun, ...APPROVER, maxAgeMs: DAY_MS, workspace });
  const changes: Record<string, [PlanBinding, RegExp]> = {
    'the Workspace deleted and re-created': [
      { ...PLANNED_FOR, workspace: { uid: 'w-2', generation: 1 } },
      /deleted and re-created/,
    ],
    'its spec changed': [
      { ...PLANNED_FOR, workspace: { uid: 'w-1', generation: 2 } },
      /spec changed .*generation 1, now 2/,
    ],
    'a VariableSet it now refers to': [
      {
        ...PLANNED_FOR,
        variableSets: [{ name: 'creds', uid: 'v-1', resourceVersion: '7', secretResourceVersion: null }],
      },
      /VariableSet "creds" changed/,
    ],
  };
  for (const [change, [now, message]] of Object.entries(changes))
    it(`${change}: refused, and nothing is recorded`, async () => {
      const workspace = `bound-${Object.keys(changes).indexOf(change)}`;
      const plan = await finished(workspace);
      const refused = approveFor(plan.id, now);
      await expect(refused).rejects.toBeInstanceOf(PlanWorkspaceChangedError);
      await expect(refused).rejects.toThrow(message);
      expect(await runsOf(workspace)).toEqual(['plan:Succeeded']);
    });

  it('a plan that recorded no binding (older than the record) is refused the same way', async () => {
    const run = await store().records.createRun({
      project: PROJECT,
      workspace: 'planned-before-bindings',
      type: 'plan',
      ...AUTHOR,
    });
    const claimed = await store().leases.claim(CONTROLLER, 60_000, {
      project: PROJECT,
      workspace: 'planned-before-bindings',
    });
    await store().leases.finish(run.id, claimed!.lease.id, CONTROLLER, 'Succeeded');
    await expect(approveFor(run.id, PLANNED_FOR)).rejects.toBeInstanceOf(PlanWorkspaceChangedError);
  });

  it('the same Workspace, spec and VariableSets: approved', async () => {
    const plan = await finished('bound-same');
    await expect(approveFor(plan.id, PLANNED_FOR)).resolves.toMatchObject({ apply: { planRun: plan.id } });
  });
});
