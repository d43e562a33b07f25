// Issue 44, item 15: `kubectl platform runs get` on a succeeded plan says in one line whether it may still
// be applied, from the run answer's `planApproval` (the server's verdict, never recomputed by the plugin).
import { describe, expect, it } from 'vitest';
import { planApprovalLine } from '../../../cli/plugin/plan-approval-line.ts';
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
