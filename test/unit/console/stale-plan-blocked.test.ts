// Issue 48 with issue 45 item 5: the console's run page offers a plan's approval only while the server would
// accept it. A plan its post-plan run tasks hold back (`planApproval.blockedBy`) is not applyable, but it is not
// stale either: the page disables Approve with the server's message instead of calling the plan stale.
import { describe, expect, it } from 'vitest';
import { stalePlanReason } from '../../../functions/console/app/src/stale-plan.ts';

const finishedAt = '2026-12-07T03:00:00.000Z';
const applyableUntil = '2026-12-08T03:00:00.000Z';
const blockedBy = { reason: 'RunTasksPending', message: 'run task scanner (post_plan) has not answered yet' };

describe('Issue 48: a plan held back by its run tasks is not called stale', () => {
  it('held back before its applyableUntil: not stale', () => {
    const run = { finishedAt, planApproval: { applyable: false, applyableUntil, supersededBy: null, blockedBy } };
    expect(stalePlanReason(run, Date.parse(finishedAt) + 3_600_000)).toBeUndefined();
  });

  it('held back past its applyableUntil, or superseded: stale all the same', () => {
    const run = { finishedAt, planApproval: { applyable: false, applyableUntil, supersededBy: null, blockedBy } };
    expect(stalePlanReason(run, Date.parse(applyableUntil) + 1)).toBe(
      'This plan is stale: it was planned more than 24h ago (PLAN_APPROVAL_MAX_AGE); start a new plan.',
    );
    const superseded = {
      finishedAt,
      planApproval: {
        ...run.planApproval,
        supersededBy: { id: '0196f0c9-0a1b-7c3d-8e4f-5a6b7c8d9e0f', type: 'plan' as const },
      },
    };
    expect(stalePlanReason(superseded, Date.parse(finishedAt))).toMatch(/^This plan is stale: a newer plan run/);
  });

  it('not applyable for no other reason: stale (PLAN_APPROVAL_MAX_AGE by the database clock)', () => {
    const run = { finishedAt, planApproval: { applyable: false, applyableUntil, supersededBy: null, blockedBy: null } };
    expect(stalePlanReason(run, Date.parse(finishedAt))).toMatch(/^This plan is stale: it was planned more than 24h/);
  });
});
