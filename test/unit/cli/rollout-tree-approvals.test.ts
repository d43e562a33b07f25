// Issue 45, item 5 (with item 2): `kubectl platform rollouts get` shows who still has to approve a stage that asks
// several approvers or a group: how many more, from which groups, and who approved so far; by the server's rule
// (shared/contract/rules/rollout-stage.ts), from the records the server keeps in the Rollout's status.
import { describe, expect, it } from 'vitest';
import { drawRollout, type Rollout } from '../../../cli/plugin/rollout-tree.ts';

const NOW = Date.parse('2026-01-02T03:04:05Z');
const record = (approvedBy: string, groups: string[] = [], revision = 'r1') => ({
  approvedBy,
  approvedAt: '2026-01-02T03:00:00Z',
  revision,
  groups,
});

function rollout(
  approval: Record<string, unknown>,
  approvals: ReturnType<typeof record>[],
  phase = 'AwaitingApproval',
): Rollout {
  return {
    metadata: { name: 'web', namespace: 'team-a' },
    spec: { revision: 'r1', stages: [{ workspace: 'prod', approval, approved: false }] },
    status: {
      phase: 'AwaitingApproval',
      revisionAuthor: { principal: 'carol', revision: 'r1' },
      stages: [{ workspace: 'prod', phase, approvals }],
    },
  };
}
const prodLine = (drawn: string) => drawn.split('\n').find((line) => line.includes('# 1 prod'))!;
const draw = (shown: Rollout) => prodLine(drawRollout(shown, { runs: new Map(), mayApprove: undefined, now: NOW }));

describe('Issue 45, item 2: the plugin shows who still has to approve', () => {
  it('two approvers, one given: one more, and who approved so far', () => {
    expect(draw(rollout({ required: true, count: 2 }, [record('alice')]))).toContain(
      'awaiting approval (needs 1 more approver; approved so far by alice)',
    );
  });

  it('a required group nobody of which has approved: the group, though the count is met', () => {
    expect(draw(rollout({ required: true, groups: ['oidc:release'] }, [record('alice', ['oidc:dev'])]))).toContain(
      'needs an approver from group oidc:release; approved so far by alice',
    );
  });

  it("four eyes: the author's approval does not count; approvals of another revision are not shown", () => {
    expect(
      draw(
        rollout(
          { required: true, distinctFromAuthor: true, count: 2 },
          [record('carol'), record('bob', [], 'r0')],
          'Pending',
        ),
      ),
    ).toContain("approval required, not by the revision's author (needs 2 more approvers; approved so far by carol)");
  });

  it('a stage that asks one approval and has none reads as before', () => {
    expect(draw(rollout({ required: true }, []))).toMatch(/awaiting approval$/);
  });
});
