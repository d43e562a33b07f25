// Issue 44, item 15: `kubectl platform runs get` on a succeeded plan says in one line whether it may still
// be applied, from the run answer's `planApproval` (the server's verdict, never recomputed by the plugin).
import { describe, expect, it } from 'vitest';
import { planApprovalLine, planApproverLines } from '../../../cli/plugin/plan-approval-line.ts';
import type { RunRecord } from '../../../cli/plugin/runs-client.ts';

const HOUR = 3_600_000;
const finished = Date.parse('2026-12-07T03:00:00.000Z');
const plan = (planApproval: RunRecord['planApproval']) =>
  ({
    id: '0196f0c2-5d7e-7b61-9a4e-2f9d1e0c8a31',
    workspace: 'network',
    type: 'plan',
    phase: 'Succeeded',
    finishedAt: new Date(finished).toISOString(),
    planApproval,
  }) as RunRecord;

describe('Issue 44, item 15: runs get states whether a succeeded plan may still be applied', () => {
  it('a plan the server holds applyable: until when, and the command that approves it', () => {
    const until = new Date(finished + 24 * HOUR).toISOString();
    expect(
      planApprovalLine(plan({ applyable: true, applyableUntil: until, supersededBy: null }), finished + HOUR),
    ).toBe(
      `Applyable until ${until} (23h from now): kubectl platform runs approve 0196f0c2-5d7e-7b61-9a4e-2f9d1e0c8a31`,
    );
  });

  it('a plan older than PLAN_APPROVAL_MAX_AGE: stale, with the limit the server applied', () => {
    const until = new Date(finished + 6 * HOUR).toISOString();
    expect(planApprovalLine(plan({ applyable: false, applyableUntil: until, supersededBy: null }))).toBe(
      'Stale plan: planned more than 6h ago (PLAN_APPROVAL_MAX_AGE); start a new plan (kubectl platform runs start network --plan)',
    );
  });

  it('any other run: no line', () => {
    expect(planApprovalLine(plan(null))).toBeUndefined();
  });
});

describe('Issue 45, items 2 and 5: runs get says who approved a plan so far and who still has to approve', () => {
  const until = new Date(finished + 24 * HOUR).toISOString();
  const open = { applyable: true, applyableUntil: until, supersededBy: null };
  const alice = { approvedBy: 'oidc:alice@example.com', approvedAt: '2026-12-07T03:10:00.000Z', groups: ['oidc:dev'] };

  it('a plan of two approvers with one given: the approval (who, when, groups), then "1 more approver"', () => {
    const state = {
      ...open,
      approvals: [alice],
      requirement: { count: 2, groups: [], distinctFromAuthor: false },
      stillNeeded: { approvers: 1, groups: [] },
    };
    expect(planApproverLines(plan(state))).toEqual([
      'Approved by oidc:alice@example.com at 2026-12-07T03:10:00.000Z (groups: oidc:dev)',
      'Still needed: 1 more approver',
    ]);
  });

  it('a required group nobody of which approved yet is named; an approver without groups says <none>', () => {
    const state = {
      ...open,
      approvals: [{ ...alice, groups: [] }],
      requirement: { count: 1, groups: ['oidc:sre'], distinctFromAuthor: false },
      stillNeeded: { approvers: 0, groups: ['oidc:sre'] },
    };
    expect(planApproverLines(plan(state))).toEqual([
      'Approved by oidc:alice@example.com at 2026-12-07T03:10:00.000Z (groups: <none>)',
      'Still needed: an approver from group oidc:sre',
    ]);
  });

  it('one approval from anybody, none given, and an older server without the fields: nothing more is said', () => {
    const plain = {
      ...open,
      approvals: [],
      requirement: { count: 1, groups: [], distinctFromAuthor: false },
      stillNeeded: { approvers: 1, groups: [] },
    };
    expect(planApproverLines(plan(plain))).toEqual([]);
    expect(planApproverLines(plan(open))).toEqual([]);
    expect(planApproverLines(plan(null))).toEqual([]);
  });

  it('a stale plan shows its approvals but asks nobody for more', () => {
    const stale = {
      applyable: false,
      applyableUntil: until,
      supersededBy: { id: '0196f0c9-0a1b-7c3d-8e4f-5a6b7c8d9e0f', type: 'plan' as const },
      approvals: [alice],
      requirement: { count: 2, groups: [], distinctFromAuthor: false },
      stillNeeded: { approvers: 1, groups: [] },
    };
    expect(planApproverLines(plan(stale))).toEqual([
      'Approved by oidc:alice@example.com at 2026-12-07T03:10:00.000Z (groups: oidc:dev)',
    ]);
  });

  it('Issue 48: a plan held back by its post-plan run tasks says so in the server\'s words, not "stale"', () => {
    const blocked = {
      applyable: false,
      applyableUntil: until,
      supersededBy: null,
      blockedBy: { reason: 'RunTasksPending', message: 'run task scanner (post_plan) has not answered yet' },
      approvals: [],
      requirement: { count: 2, groups: [], distinctFromAuthor: false },
      stillNeeded: { approvers: 2, groups: [] },
    };
    expect(planApprovalLine(plan(blocked), finished + HOUR)).toBe(
      'Not applyable yet (RunTasksPending): run task scanner (post_plan) has not answered yet',
    );
    expect(planApproverLines(plan(blocked))).toEqual(['Still needed: 2 more approvers']);
    // Past its age limit it is stale all the same.
    expect(planApprovalLine(plan(blocked), finished + 25 * HOUR)).toMatch(/^Stale plan: planned more than 24h ago/);
  });
});

describe('Issue 48, item 1: runs get says why a succeeded plan is held back by its post_plan run tasks (planApproval.blockedBy)', () => {
  const until = new Date(finished + 24 * HOUR).toISOString();
  it('a plan whose post_plan task failed: the refusal the server would give, not staleness', () => {
    const message =
      'plan run 0196f0c2-5d7e-7b61-9a4e-2f9d1e0c8a31 may not be applied: mandatory run task scanner failed at post_plan: public bucket';
    expect(
      planApprovalLine(
        plan({
          applyable: false,
          applyableUntil: until,
          supersededBy: null,
          blockedBy: { reason: 'RunTaskFailed', message },
        }),
        finished + HOUR,
      ),
    ).toBe(`Not applyable (RunTaskFailed): ${message}`);
  });

  it('a plan whose post_plan tasks have not answered yet: not applyable yet, naming them', () => {
    const message = 'plan run 0196f0c2 may not be applied yet: run task cost at post_plan has not answered';
    expect(
      planApprovalLine(
        plan({
          applyable: false,
          applyableUntil: until,
          supersededBy: null,
          blockedBy: { reason: 'RunTasksPending', message },
        }),
        finished + HOUR,
      ),
    ).toBe(`Not applyable yet (RunTasksPending): ${message}`);
  });

  it('nothing blocks it (blockedBy null): applyable as before', () => {
    expect(
      planApprovalLine(
        plan({ applyable: true, applyableUntil: until, supersededBy: null, blockedBy: null }),
        finished + HOUR,
      ),
    ).toMatch(/^Applyable until /);
  });
});
