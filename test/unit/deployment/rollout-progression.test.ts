// Issue 44, item 3: the development controller "moves the demo Rollout through its stages as a
// rollout controller would, stopping where approval is required". The step rule alone, one step at
// a time (test/system/deployment/local-dev-controller.test.ts shows it through npm start and the API).
import { describe, expect, it } from 'vitest';
import {
  nextRolloutStatus,
  type ProgressedRollout,
} from '../../../infra/development/controller/rollout-progression.ts';

const NOW = '2026-12-07T03:00:00.000Z';

/** Applies steps until the rule has nothing more to do; the phases seen after each step. */
function walk(rollout: ProgressedRollout): string[] {
  const seen: string[] = [];
  for (let step = 0; step < 20; step++) {
    const status = nextRolloutStatus(rollout, NOW);
    if (!status) return seen;
    rollout.status = status;
    seen.push(`${status.phase} ${status.stages.map((stage) => stage.phase).join(',')}`);
  }
  throw new Error('the Rollout never settled');
}

const demo = (production: Omit<ProgressedRollout['spec']['stages'][number], 'workspace'>): ProgressedRollout => ({
  metadata: { name: 'network-v2', namespace: 'demo', generation: 1 },
  spec: { stages: [{ workspace: 'network-staging' }, { workspace: 'network-production', ...production }] },
});

describe('Issue 44, item 3: a Rollout moves stage by stage and stops where approval is required', () => {
  it('goes through the first stage, then waits at the one that needs an approval, and says so once', () => {
    const rollout = demo({ approval: { required: true } });
    expect(walk(rollout)).toEqual([
      'Progressing Planning,Pending',
      'Progressing Applying,Pending',
      'Progressing Applied,Pending',
      'Progressing Applied,Planning',
      'AwaitingApproval Applied,AwaitingApproval',
    ]);
    expect(rollout.status).toMatchObject({ currentStage: 1, startedAt: NOW, observedGeneration: 1 });
  });

  it('goes on once the stage is approved, and ends Succeeded', () => {
    const rollout = demo({ approval: { required: true } });
    walk(rollout);
    rollout.spec.stages[1]!.approved = true;
    expect(walk(rollout)).toEqual([
      'Progressing Applied,Applying',
      'Progressing Applied,Applied',
      'Succeeded Applied,Applied',
    ]);
    expect(rollout.status).toMatchObject({ finishedAt: NOW });
  });

  it('four eyes and the deprecated requireApproval stop it too; a stage without a gate does not', () => {
    for (const gate of [{ approval: { distinctFromAuthor: true } }, { requireApproval: true }])
      expect(walk(demo(gate)).at(-1)).toBe('AwaitingApproval Applied,AwaitingApproval');
    expect(walk(demo({})).at(-1)).toBe('Succeeded Applied,Applied');
  });

  it('leaves a failed stage as it is', () => {
    const rollout = demo({});
    rollout.status = { phase: 'Failed', stages: [{ workspace: 'network-staging', phase: 'Failed' }] };
    expect(nextRolloutStatus(rollout, NOW)).toBeUndefined();
  });
});
