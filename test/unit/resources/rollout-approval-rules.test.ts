// Issue 37: the rules that judge a Rollout write's approvals on its result (shared/domain/approvals/stage-approvals.ts),
// one by one: which stages a write grants, withdraws, lets outlive their revision or loosens, who authored the
// revision, and what the server records in status and keeps from clients.
import { describe, expect, it } from 'vitest';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import {
  approvalChanges,
  recordedRevisionAuthor,
  recordedStatus,
  recordsApprovals,
  revisionOf,
  stageGates,
  withStagesApproved,
  withStoredApprovalRecords,
} from '../../../shared/domain/approvals/stage-approvals.ts';

const rollout = (revision: string, stages: unknown[], status?: Record<string, unknown>): PlatformObject => ({
  metadata: { name: 'r' },
  spec: { revision, stages },
  ...(status ? { status } : {}),
});
const gated = { workspace: 'prod', approval: { required: true } };
const fourEyes = { workspace: 'eu', approval: { required: true, distinctFromAuthor: true } };
const approved = <T extends object>(stage: T) => ({ ...stage, approved: true });

describe('stageGates: a stage waits for approval by approval.required, the deprecated requireApproval, or four eyes', () => {
  it('reads each stage by its workspace, leniently', () => {
    const gates = stageGates(
      rollout('r1', [
        { workspace: 'a' },
        { workspace: 'b', requireApproval: true },
        { workspace: 'c', approval: { distinctFromAuthor: true }, approved: true },
        { workspace: 'd', approval: { required: 'yes' } },
        'not a stage',
        { approved: true },
      ]),
    );
    expect(Object.fromEntries(gates)).toEqual({
      a: { required: false, distinctFromAuthor: false, approved: false },
      b: { required: true, distinctFromAuthor: false, approved: false },
      c: { required: true, distinctFromAuthor: true, approved: true },
      d: { required: false, distinctFromAuthor: false, approved: false },
    });
  });

  it('a Rollout without stages (or without a spec, or none at all) has no gates; its revision is a string or none', () => {
    for (const object of [undefined, { metadata: {} }, { metadata: {}, spec: { stages: 'x' } }])
      expect(stageGates(object).size).toBe(0);
    expect([revisionOf(undefined), revisionOf({ metadata: {} }), revisionOf(rollout('r1', []))]).toEqual([
      undefined,
      undefined,
      'r1',
    ]);
    expect(revisionOf({ metadata: {}, spec: { revision: 7 } })).toBeUndefined();
  });
});

describe("approvalChanges: what a write's result does to the approvals, against the stored object", () => {
  const none = { granted: [], outlived: [], withdrawn: [], loosened: [], fourEyes: [] };

  it('a create authors the revision and grants every stage it approves (four eyes noted)', () => {
    expect(
      approvalChanges(undefined, rollout('r1', [approved(gated), approved(fourEyes), { workspace: 'x' }])),
    ).toEqual({
      ...none,
      authorsRevision: true,
      granted: ['prod', 'eu'],
      fourEyes: ['eu'],
    });
  });

  it('a create without a revision still authors it (the cluster then refuses the object)', () => {
    expect(approvalChanges(undefined, { metadata: {}, spec: { stages: [] } }).authorsRevision).toBe(true);
  });

  it('there is something to record after a write that authored the revision, granted or withdrew an approval', () => {
    const nothing = approvalChanges(rollout('r1', []), rollout('r1', []));
    expect([
      recordsApprovals(nothing),
      recordsApprovals({ ...nothing, authorsRevision: true }),
      recordsApprovals({ ...nothing, granted: ['prod'] }),
      recordsApprovals({ ...nothing, withdrawn: ['prod'] }),
      recordsApprovals({ ...nothing, loosened: ['prod'], outlived: ['eu'], fourEyes: ['eu'] }),
    ]).toEqual([false, true, true, true, false]);
  });

  it('the same approvals on the same revision change nothing', () => {
    const stored = rollout('r1', [approved(gated), fourEyes]);
    expect(approvalChanges(stored, rollout('r1', [approved(gated), fourEyes]))).toEqual({
      ...none,
      authorsRevision: false,
    });
    expect(recordsApprovals(approvalChanges(stored, stored))).toBe(false);
  });

  it('approving grants; unapproving or removing an approved stage withdraws', () => {
    const stored = rollout('r1', [approved(gated), fourEyes, approved({ workspace: 'gone' })]);
    expect(approvalChanges(stored, rollout('r1', [gated, approved(fourEyes)]))).toEqual({
      ...none,
      authorsRevision: false,
      granted: ['eu'],
      fourEyes: ['eu'],
      withdrawn: ['prod', 'gone'],
    });
  });

  it('a new revision: approvals carried over outlive theirs (withdrawn), approvals new in the write are granted', () => {
    const stored = rollout('r1', [approved(gated), fourEyes]);
    expect(approvalChanges(stored, rollout('r2', [approved(gated), approved(fourEyes)]))).toEqual({
      ...none,
      authorsRevision: true,
      granted: ['eu'],
      fourEyes: ['eu'],
      outlived: ['prod'],
      withdrawn: ['prod'],
    });
  });

  it('loosening a gate: required, the deprecated requireApproval or four eyes switched off (removing a stage is not)', () => {
    const stored = rollout('r1', [
      gated,
      fourEyes,
      { workspace: 'legacy', requireApproval: true },
      { ...gated, workspace: 'gone' },
    ]);
    const result = rollout('r1', [
      { workspace: 'prod', approval: { required: false } },
      { workspace: 'eu', approval: { required: true } },
      { workspace: 'legacy' },
    ]);
    expect(approvalChanges(stored, result).loosened).toEqual(['prod', 'eu', 'legacy']);
  });

  it('four eyes holds when either the stored stage or the result asks for it', () => {
    const stored = rollout('r1', [fourEyes]);
    const changes = approvalChanges(
      stored,
      rollout('r1', [approved({ workspace: 'eu', approval: { required: true } })]),
    );
    expect({ fourEyes: changes.fourEyes, loosened: changes.loosened }).toEqual({ fourEyes: ['eu'], loosened: ['eu'] });
  });
});

describe('withStagesApproved: approvals that outlived their revision set false, a stage approved by the approve route', () => {
  it('only the stages named; the object is otherwise the same, and nothing named is the object itself', () => {
    const result = rollout('r2', [approved(gated), approved(fourEyes)]);
    expect(withStagesApproved(result, ['prod'], false).spec!.stages).toEqual([
      { ...gated, approved: false },
      approved(fourEyes),
    ]);
    expect(withStagesApproved(rollout('r1', [gated, 'x']), ['prod'], true).spec!.stages).toEqual([
      approved(gated),
      'x',
    ]);
    expect(withStagesApproved(result, [], false)).toBe(result);
  });
});

describe("recordedRevisionAuthor: the stored revision's author, only when recorded for that revision", () => {
  it.each([
    ['recorded for the revision', { revisionAuthor: { principal: 'alice', revision: 'r1' } }, 'alice'],
    ['recorded for another revision', { revisionAuthor: { principal: 'alice', revision: 'r0' } }, undefined],
    ['not recorded', {}, undefined],
    ['malformed', { revisionAuthor: 'alice' }, undefined],
    ['without a principal name', { revisionAuthor: { principal: 7, revision: 'r1' } }, undefined],
  ])('%s', (_case, status, author) => {
    expect(recordedRevisionAuthor(rollout('r1', [], status))).toBe(author);
  });

  it('no status at all: not recorded', () => {
    expect(recordedRevisionAuthor(rollout('r1', []))).toBeUndefined();
  });
});

describe('recordedStatus (issue 43 item 7, issue 45 item 2): one status write records the approval and, when the requirement is met, opens the gate', () => {
  const recording = {
    writer: 'bob',
    groups: [] as string[],
    at: '2026-01-02T03:04:05.000Z',
    revision: 'r1',
    policy: new Map(),
  };
  const bobs = { approvedBy: 'bob', approvedAt: recording.at, revision: 'r1' };
  const carols = { approvedBy: 'carol', approvedAt: 'x', revision: 'r1' };

  it("records the author of a new revision and the writer's approval of each granted stage (the gate with it); a withdrawn stage's records go", () => {
    const current = rollout('r1', [gated, fourEyes], {
      phase: 'AwaitingApproval',
      stages: [{ workspace: 'eu', phase: 'Pending', approval: carols, approvals: [carols] }],
    });
    const changes = {
      ...approvalChanges(rollout('r0', [fourEyes]), rollout('r1', [approved(gated), fourEyes])),
      withdrawn: ['eu'],
    };
    expect(recordedStatus(current, changes, recording)).toEqual({
      phase: 'AwaitingApproval',
      revisionAuthor: { principal: 'bob', revision: 'r1', changedAt: recording.at },
      stages: [
        { workspace: 'eu', phase: 'Pending' },
        { workspace: 'prod', approvals: [bobs], approval: bobs },
      ],
    });
  });

  it("records a granted stage in its existing status entry, beside the controller's fields", () => {
    const current = rollout('r1', [gated], { stages: [{ workspace: 'prod', phase: 'AwaitingApproval' }, 'x'] });
    const changes = approvalChanges(rollout('r1', [gated]), rollout('r1', [approved(gated)]));
    expect(recordedStatus(current, changes, recording)).toStrictEqual({
      stages: [{ workspace: 'prod', phase: 'AwaitingApproval', approvals: [bobs], approval: bobs }],
    });
  });

  it('a stage that needs two approvers opens with the second distinct one, whose approval the gate names', () => {
    const twice = { workspace: 'prod', approval: { required: true, count: 2 } };
    const changes = approvalChanges(rollout('r1', [twice]), rollout('r1', [approved(twice)]));
    const first = recordedStatus(rollout('r1', [twice]), changes, { ...recording, writer: 'carol', at: 'x' })!;
    expect(first).toEqual({ stages: [{ workspace: 'prod', approvals: [carols] }] });
    expect(recordedStatus(rollout('r1', [twice], first), changes, recording)).toEqual({
      stages: [{ workspace: 'prod', approvals: [carols, bobs], approval: bobs }],
    });
  });

  it("a required group is met only by an approver of it; the Project's policy joins the stage's own requirement", () => {
    const changes = approvalChanges(rollout('r1', [gated]), rollout('r1', [approved(gated)]));
    const policy = new Map([['prod', { count: 1, groups: ['oidc:release'], distinctFromAuthor: false }]]);
    expect(recordedStatus(rollout('r1', [gated]), changes, { ...recording, policy })).toEqual({
      stages: [{ workspace: 'prod', approvals: [bobs] }],
    });
    expect(recordedStatus(rollout('r1', [gated]), changes, { ...recording, policy, groups: ['oidc:release'] })).toEqual(
      {
        stages: [{ workspace: 'prod', approvals: [{ ...bobs, groups: ['oidc:release'] }], approval: bobs }],
      },
    );
  });

  it("under four eyes the author's approval does not count; records of another revision are dropped", () => {
    const current = rollout('r1', [fourEyes], {
      revisionAuthor: { principal: 'bob', revision: 'r1', changedAt: 'x' },
      stages: [{ workspace: 'eu', approvals: [{ ...carols, revision: 'r0' }] }],
    });
    const changes = approvalChanges(rollout('r1', [fourEyes]), rollout('r1', [approved(fourEyes)]));
    expect(recordedStatus(current, changes, recording)).toEqual({
      revisionAuthor: { principal: 'bob', revision: 'r1', changedAt: 'x' },
      stages: [{ workspace: 'eu', approvals: [bobs] }],
    });
  });

  it('records nothing of a revision a later write replaced', () => {
    const changes = approvalChanges(rollout('r0', []), rollout('r1', [approved(gated)]));
    expect(recordedStatus(rollout('r2', [gated]), changes, recording)).toBeUndefined();
  });
});

describe('withStoredApprovalRecords: what a client sends as approval records is replaced by the stored ones', () => {
  const author = { principal: 'alice', revision: 'r1', changedAt: 't' };
  const record = { approvedBy: 'bob', approvedAt: 't', revision: 'r1' };
  const stored = rollout('r1', [approved(gated)], {
    revisionAuthor: author,
    stages: [{ workspace: 'prod', approval: record }],
  });

  it('forged records are replaced or dropped; the other status fields stay as sent', () => {
    const sent = rollout('r1', [], {
      phase: 'Progressing',
      revisionAuthor: { principal: 'mallory' },
      stages: [
        { workspace: 'prod', phase: 'Applying', approval: { approvedBy: 'mallory' } },
        { workspace: 'eu', approval: { approvedBy: 'mallory' } },
      ],
    });
    expect(withStoredApprovalRecords(sent, stored).status).toStrictEqual({
      phase: 'Progressing',
      revisionAuthor: author,
      stages: [{ workspace: 'prod', phase: 'Applying', approval: record }, { workspace: 'eu' }],
    });
  });

  it('with nothing stored, every record sent is dropped; entries that are not objects stay for the cluster to judge', () => {
    const sent = rollout('r1', [], {
      revisionAuthor: { principal: 'mallory' },
      stages: ['x', { workspace: 'prod', approval: { approvedBy: 'mallory' } }],
    });
    expect(withStoredApprovalRecords(sent, rollout('r1', [])).status).toStrictEqual({
      stages: ['x', { workspace: 'prod' }],
    });
    const storedWithoutRecords = rollout('r1', [], { stages: [{ workspace: 'prod', phase: 'Applied' }] });
    expect(
      withStoredApprovalRecords(rollout('r1', [], { phase: 'Succeeded' }), storedWithoutRecords).status,
    ).toStrictEqual({
      phase: 'Succeeded',
    });
  });

  it('records the client dropped (the author, a stage, the whole list) come back; a status that is no object is left to the cluster', () => {
    expect(withStoredApprovalRecords(rollout('r1', [], { phase: 'Pending' }), stored).status).toStrictEqual({
      phase: 'Pending',
      revisionAuthor: author,
      stages: [{ workspace: 'prod', approval: record }],
    });
    expect(
      withStoredApprovalRecords(rollout('r1', [], { revisionAuthor: { principal: 'x' } }), rollout('r1', [])).status,
    ).toStrictEqual({});
    const invalid = { ...rollout('r1', []), status: 'not an object' } as unknown as PlatformObject;
    expect(withStoredApprovalRecords(invalid, stored)).toBe(invalid);
  });
});
