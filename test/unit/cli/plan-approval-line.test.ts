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
