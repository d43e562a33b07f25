// Issue 47, item 1: the Rollout stage and approval window events are derived from what the cluster shows (a Rollout's
// spec and status, a Project's approval policy at an instant) and from the state last recorded; these are the rules
// the reconciler (shared/domain/cluster-events/) applies before it writes anything.
import { describe, expect, it } from 'vitest';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import {
  FREEZE_GATE,
  gateEventOf,
  gateStatesOf,
  transitionMinute,
  windowGate,
} from '../../../shared/domain/cluster-events/approval-gate-states.ts';
import { clusterEventId } from '../../../shared/domain/cluster-events/cluster-event-id.ts';
import {
  approversOf,
  stageEventOf,
  stageStatesOf,
} from '../../../shared/domain/cluster-events/rollout-stage-states.ts';

function rollout(
  phases: Record<string, string>,
  approved: Record<string, string> = {},
  revision = 'r1',
): PlatformObject {
  return {
    metadata: { name: 'web', namespace: 'team-a', uid: 'uid-1' },
    spec: {
      revision,
      stages: [{ workspace: 'staging' }, { workspace: 'prod', approval: { required: true } }],
    },
    status: {
      stages: Object.entries(phases).map(([workspace, phase]) => ({
        workspace,
        phase,
        ...(approved[workspace]
          ? {
              approval: { revision: approved[workspace] },
              approvals: [{ approvedBy: 'alice', approvedAt: '2026-01-01T00:00:00Z', revision: approved[workspace] }],
            }
          : {}),
      })),
    },
  };
}

const stateOf = (object: PlatformObject, stage: string) =>
  stageStatesOf(object).find((observed) => observed.stage === stage)!;

describe('Issue 47, item 1: a Rollout stage state is derived from the controller status and the server approval record', () => {
  it('a stage the controller holds at AwaitingApproval awaits approval; one with no phase written is pending', () => {
    const object = rollout({ staging: 'Applied', prod: 'AwaitingApproval' });
    expect(stageStatesOf(object)).toEqual([
      { stage: 'staging', index: 0, revision: 'r1', phase: 'Applied', state: 'promoted' },
      { stage: 'prod', index: 1, revision: 'r1', phase: 'AwaitingApproval', state: 'awaiting' },
    ]);
    expect(stateOf(rollout({}), 'prod')).toMatchObject({ phase: 'Pending', state: 'pending' });
  });

  it('a stage whose gate the server recorded open for the current revision is approved, until it is applied or fails', () => {
    expect(stateOf(rollout({ prod: 'AwaitingApproval' }, { prod: 'r1' }), 'prod').state).toBe('approved');
    expect(stateOf(rollout({ prod: 'Applying' }, { prod: 'r1' }), 'prod').state).toBe('approved');
    expect(stateOf(rollout({ prod: 'Applied' }, { prod: 'r1' }), 'prod').state).toBe('promoted');
    expect(stateOf(rollout({ prod: 'Failed' }, { prod: 'r1' }), 'prod').state).toBe('failed');
    expect(approversOf(rollout({ prod: 'Applying' }, { prod: 'r1' }), 'prod')).toEqual(['alice']);
  });

  it('an approval of an earlier revision does not count: a new revision closes every gate', () => {
    expect(stateOf(rollout({ prod: 'AwaitingApproval' }, { prod: 'r1' }, 'r2'), 'prod').state).toBe('awaiting');
  });

  it('a Rollout without a revision or stages has no stage to tell', () => {
    expect(stageStatesOf({ metadata: { name: 'x' }, spec: {} })).toEqual([]);
  });
});

describe('Issue 47, item 1: which change of a stage is an event (awaiting approval, approved, promoted, failed, withdrawn)', () => {
  const at = (state: 'pending' | 'awaiting' | 'approved' | 'promoted' | 'failed', revision = 'r1') => ({
    state,
    revision,
  });

  it('a stage first seen sends only that it awaits approval; its history is not sent', () => {
    expect(stageEventOf(undefined, at('awaiting'))).toBe('awaiting_approval');
    for (const state of ['pending', 'approved', 'promoted', 'failed'] as const)
      expect(stageEventOf(undefined, at(state))).toBeUndefined();
  });

  it('a stage first seen just after a write changed it (the approve and withdraw routes) is told as it is', () => {
    expect(stageEventOf(undefined, at('approved'), 'current')).toBe('approved');
    expect(stageEventOf(undefined, at('awaiting'), 'current')).toBe('awaiting_approval');
    expect(stageEventOf(undefined, at('pending'), 'current')).toBeUndefined();
  });

  it('each move to awaiting, approved, promoted or failed is its event; the same state again is none', () => {
    expect(stageEventOf(at('pending'), at('awaiting'))).toBe('awaiting_approval');
    expect(stageEventOf(at('awaiting'), at('approved'))).toBe('approved');
    expect(stageEventOf(at('approved'), at('promoted'))).toBe('promoted');
    expect(stageEventOf(at('approved'), at('failed'))).toBe('failed');
    expect(stageEventOf(at('awaiting'), at('awaiting'))).toBeUndefined();
    expect(stageEventOf(at('awaiting'), at('pending'))).toBeUndefined();
  });

  it('an approval gone for the same revision is withdrawn; gone with a new revision is the new revision awaiting', () => {
    expect(stageEventOf(at('approved'), at('awaiting'))).toBe('approval_withdrawn');
    expect(stageEventOf(at('approved'), at('pending'))).toBe('approval_withdrawn');
    expect(stageEventOf(at('approved'), at('awaiting', 'r2'))).toBe('awaiting_approval');
    expect(stageEventOf(at('approved'), at('pending', 'r2'))).toBeUndefined();
    expect(stageEventOf(at('awaiting'), at('awaiting', 'r2'))).toBe('awaiting_approval');
  });
});

describe('Issue 47, item 1: approval windows opened and closed, and the freeze, at an instant the caller gives', () => {
  const window = {
    name: 'change-window',
    kind: 'allow' as const,
    start: '2026-03-01T10:00:30Z',
    end: '2026-03-01T12:00:00Z',
    appliesTo: { rollouts: ['*'] },
  };
  const before = new Date('2026-03-01T09:59:00Z');
  const during = new Date('2026-03-01T11:00:00Z');
  const after = new Date('2026-03-01T12:00:00Z');

  it('a window is open inside its opening (start included, end excluded), with the opening; the freeze is a gate too', () => {
    const [shut, freeze] = gateStatesOf({ windows: [window] }, before);
    expect(shut).toMatchObject({ gate: windowGate('change-window'), open: false });
    expect(freeze).toEqual({ gate: FREEZE_GATE, open: false });
    expect(gateStatesOf({ windows: [window] }, during)[0]).toMatchObject({
      open: true,
      opening: { start: new Date(window.start), end: new Date(window.end) },
    });
    expect(gateStatesOf({ windows: [window] }, after)[0]!.open).toBe(false);
    expect(gateStatesOf({ freeze: { active: true } }, during)).toEqual([{ gate: FREEZE_GATE, open: true }]);
  });

  it('a window that cannot be evaluated has no state (nothing opened or closed)', () => {
    const broken = { ...window, start: undefined, end: undefined, schedule: 'not cron', duration: '1h' };
    expect(gateStatesOf({ windows: [broken] }, during).map((gate) => gate.gate)).toEqual([FREEZE_GATE]);
  });

  it('opened and closed are a change of a gate seen before; a gate first seen records its state without an event', () => {
    const open = gateStatesOf({ windows: [window] }, during)[0]!;
    const shut = gateStatesOf({ windows: [window] }, after)[0]!;
    const recordedShut = { open: false, openingStart: null, openingEnd: null };
    const recordedOpen = { open: true, openingStart: new Date(window.start), openingEnd: new Date(window.end) };
    expect(gateEventOf(undefined, open)).toBeUndefined();
    expect(gateEventOf(recordedShut, open)).toBe('window.opened');
    expect(gateEventOf(recordedOpen, shut)).toBe('window.closed');
    expect(gateEventOf(recordedOpen, open)).toBeUndefined();
    expect(gateEventOf(recordedShut, { gate: FREEZE_GATE, open: true })).toBe('freeze.started');
    expect(gateEventOf({ ...recordedShut, open: true }, { gate: FREEZE_GATE, open: false })).toBe('freeze.lifted');
  });

  it("an event's instant is the opening that began or ended, to the minute", () => {
    const open = gateStatesOf({ windows: [window] }, during)[0]!;
    const shut = gateStatesOf({ windows: [window] }, after)[0]!;
    const recordedOpen = { open: true, openingStart: new Date(window.start), openingEnd: new Date(window.end) };
    expect(transitionMinute('window.opened', { ...recordedOpen, open: false }, open)).toBe('2026-03-01T10:00:00.000Z');
    expect(transitionMinute('window.closed', recordedOpen, shut)).toBe('2026-03-01T12:00:00.000Z');
  });
});

describe('Issue 47, item 3: a stable event id for de-duplication', () => {
  it('the same parts make the same UUID; any other part another', () => {
    const id = clusterEventId('rollout-stage', 'uid-1', 'prod', 'r1', 'approved', '2');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(clusterEventId('rollout-stage', 'uid-1', 'prod', 'r1', 'approved', '2')).toBe(id);
    expect(clusterEventId('rollout-stage', 'uid-1', 'prod', 'r1', 'approved', '4')).not.toBe(id);
    expect(clusterEventId('rollout-stage', 'uid-1', 'prod', 'r2', 'approved', '2')).not.toBe(id);
  });
});
