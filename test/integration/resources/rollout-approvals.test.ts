// Issue 37, build items 1 and 2: setting a Rollout stage's approval is the `approve` verb on every write path
// (merge patch, JSON patch, server-side apply, PUT, create, the approve route, dry runs; `kubectl edit` in
// test/system/kubectl/rollout-approvals-kubectl.test.ts), decided by the chain with the write's own verb; a write that
// leaves approvals as they were needs none. Four eyes: the revision's author may not approve, the admin included.
// The server records approvals and the revision's author in `status`, never what clients write there, and the
// audit trail names both principals. Through the gateway, on the emulator with the chart's CRDs and RBAC.
import { describe, expect, it } from 'vitest';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import { AuditCapture } from '../../support/audit-capture.ts';
import {
  STAGES,
  createRollout,
  rolloutObject,
  rolloutPath,
  useApprovalCallers,
  userOf,
} from '../../support/approval-callers.ts';
import type { ApprovalCaller } from '../../support/approval-callers.ts';
import { API, GROUP, TEAM_PROJECT, expectStatus, send, usePlatform } from '../../support/platform-fixture.ts';

const audit = new AuditCapture();
const platform = usePlatform({}, { auditSinks: [audit] });
const tokenOf = useApprovalCallers(platform);
const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const APPLY = 'application/apply-patch+yaml';

type Who = ApprovalCaller | 'admin';
const token = (who: Who) => (who === 'admin' ? platform().tokens.admin : tokenOf(who));
const as =
  (who: Who) =>
  (method: string, path: string, body?: unknown, contentType?: string): Promise<Response> =>
    send(platform().gateway.url, token(who), method, path, body, contentType);
const approveRoute = (name: string) => `/api/v1alpha1/projects/${TEAM_PROJECT}/rollouts/${name}/approve`;

interface Stage {
  workspace: string;
  approved?: boolean;
  approval?: Record<string, unknown>;
  requireApproval?: boolean;
}
type Rollout = PlatformObject & {
  spec: { revision: string; stages: Stage[] };
  status?: { revisionAuthor?: Record<string, string>; stages?: Array<{ workspace: string; approval?: unknown }> };
};

// The Rollout as clients read it: each stage's `approved` is the server's, from the records in its status (issue 43 item 7).
const stored = async (name: string): Promise<Rollout> => as('admin')('GET', rolloutPath(name)).then(expectStatus(200));
const stageOf = (rollout: Rollout, workspace: string) => rollout.spec.stages.find((s) => s.workspace === workspace)!;
const recordOf = (rollout: Rollout, workspace: string) =>
  rollout.status?.stages?.find((stage) => stage.workspace === workspace)?.approval;
const withApproved = (stages: Stage[], workspace: string, approved = true): Stage[] =>
  stages.map((stage) => (stage.workspace === workspace ? { ...stage, approved } : stage));

let rollouts = 0;
/** A new Rollout created by the admin (its revision's author), with STAGES. */
async function newRollout(author: Who = 'admin'): Promise<string> {
  const name = `approvals-${++rollouts}`;
  await createRollout(platform, token(author), name);
  return name;
}

/** Sets `stage`'s approval as one write path does it; `dryRun` asks for a dry run. */
type WritePath = (who: Who, name: string, stage: string, dryRun?: boolean) => Promise<Response>;
const query = (dryRun?: boolean, extra = '') => {
  const parameters = [extra, dryRun ? 'dryRun=All' : ''].filter(Boolean).join('&');
  return parameters ? `?${parameters}` : '';
};
const WRITE_PATHS: Record<string, WritePath> = {
  'a merge patch': async (who, name, stage, dryRun) =>
    as(who)(
      'PATCH',
      rolloutPath(name) + query(dryRun),
      { spec: { stages: withApproved((await stored(name)).spec.stages, stage) } },
      MERGE,
    ),
  'a JSON patch': async (who, name, stage, dryRun) => {
    const index = (await stored(name)).spec.stages.findIndex((candidate) => candidate.workspace === stage);
    return as(who)(
      'PATCH',
      rolloutPath(name) + query(dryRun),
      [{ op: 'replace', path: `/spec/stages/${index}/approved`, value: true }],
      JSON_PATCH,
    );
  },
  'a server-side apply': (who, name, stage, dryRun) =>
    as(who)(
      'PATCH',
      rolloutPath(name) + query(dryRun, 'fieldManager=approvals-test'),
      JSON.stringify(rolloutObject(name, 'r1', withApproved(STAGES, stage))),
      APPLY,
    ),
  'a PUT': async (who, name, stage, dryRun) => {
    const current = await stored(name);
    return as(who)('PUT', rolloutPath(name) + query(dryRun), {
      ...current,
      spec: { ...current.spec, stages: withApproved(current.spec.stages, stage) },
    });
  },
};
const DRY_RUN_PATHS = Object.entries(WRITE_PATHS);
const ALL_PATHS: Array<[string, WritePath]> = [
  ...DRY_RUN_PATHS,
  ['the approve route', (who, name, stage) => as(who)('POST', approveRoute(name), { stage })],
];

describe('issue 37, item 1: a caller with `patch` but not `approve` cannot set an approval by any write path, and nothing changes', () => {
  it.each(ALL_PATHS)('%s: 403 naming the verb; the stored Rollout is exactly as before', async (_path, write) => {
    const name = await newRollout();
    const before = await stored(name);
    const refused = await write('rollout-writer', name, 'prod').then(expectStatus(403));
    // A Kubernetes Status on the resource routes, the platform's error on the approve route: both carry these.
    expect(refused.reason).toBe('Forbidden');
    expect(refused.error).toContain(
      `${userOf('rollout-writer')} may not approve rollouts.${GROUP} "${name}" in namespace "${TEAM_PROJECT}"`,
    );
    expect(await stored(name)).toEqual(before);
  });

  it.each(DRY_RUN_PATHS)('%s as a dry run: 403 as well, and nothing changes', async (_path, write) => {
    const name = await newRollout();
    const before = await stored(name);
    await write('rollout-writer', name, 'prod', true).then(expectStatus(403));
    expect(await stored(name)).toEqual(before);
  });

  it('creating a Rollout with a stage already approved is granting it: 403, and nothing is created', async () => {
    const name = `approvals-created-${++rollouts}`;
    const refused = await as('rollout-writer')(
      'POST',
      `${API}/namespaces/${TEAM_PROJECT}/rollouts`,
      rolloutObject(name, 'r1', withApproved(STAGES, 'prod')),
    ).then(expectStatus(403));
    expect(refused.message).toContain('may not approve rollouts');
    expect(await platform().clusterAdmin.find(rolloutPath(name))).toBeUndefined();
  });
});

describe('issue 37, item 1: a caller with `patch` and `approve` sets it by every path; the server records who and when', () => {
  it.each(ALL_PATHS)(
    '%s: the stage is approved, and status records the approver for the revision',
    async (_path, write) => {
      const name = await newRollout();
      const answer = await write('rollout-approver', name, 'prod').then(expectStatus(200));
      expect(stageOf(answer, 'prod').approved).toBe(true);
      const after = await stored(name);
      expect(stageOf(after, 'prod').approved).toBe(true);
      expect(recordOf(after, 'prod')).toEqual({
        approvedBy: userOf('rollout-approver'),
        approvedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
        revision: 'r1',
      });
      expect(after.status?.revisionAuthor).toMatchObject({ principal: 'admin', revision: 'r1' });
      // The answer is the Rollout as stored, records included.
      expect(recordOf(answer, 'prod')).toEqual(recordOf(after, 'prod'));
    },
  );

  it.each(DRY_RUN_PATHS)(
    '%s as a dry run: answered as approved, and nothing is stored or recorded',
    async (_path, write) => {
      const name = await newRollout();
      const before = await stored(name);
      const answer = await write('rollout-approver', name, 'prod', true).then(expectStatus(200));
      expect(stageOf(answer, 'prod').approved).toBe(true);
      expect(await stored(name)).toEqual(before);
    },
  );

  it('the approve route needs only `approve`: a caller with no other verb approves', async () => {
    const name = await newRollout();
    const answer = await as('approve-only')('POST', approveRoute(name), { stage: 'prod' }).then(expectStatus(200));
    expect(stageOf(answer, 'prod').approved).toBe(true);
    expect(recordOf(await stored(name), 'prod')).toMatchObject({ approvedBy: userOf('approve-only') });
    // ... and `approve` is not `patch`: it writes nothing else.
    await as('approve-only')('PATCH', rolloutPath(name), { spec: { description: 'x' } }, MERGE).then(expectStatus(403));
  });

  it('a create with an approved stage by a caller who may approve: created, approved and recorded', async () => {
    const name = `approvals-created-${++rollouts}`;
    await as('rollout-approver')(
      'POST',
      `${API}/namespaces/${TEAM_PROJECT}/rollouts`,
      rolloutObject(name, 'r1', withApproved(STAGES, 'prod')),
    ).then(expectStatus(201));
    const created = await stored(name);
    expect(recordOf(created, 'prod')).toMatchObject({ approvedBy: userOf('rollout-approver'), revision: 'r1' });
    expect(created.status?.revisionAuthor).toMatchObject({ principal: userOf('rollout-approver'), revision: 'r1' });
  });
});

describe('issue 37, item 1: a write that leaves approvals as they were needs no `approve`', () => {
  it('a merge patch of the description, and a PUT that sends the stored approvals back, by the writer: 200, approvals kept', async () => {
    const name = await newRollout();
    await as('rollout-approver')('POST', approveRoute(name), { stage: 'prod' }).then(expectStatus(200));
    await as('rollout-writer')('PATCH', rolloutPath(name), { spec: { description: 'window: Tuesday' } }, MERGE).then(
      expectStatus(200),
    );
    const current = await stored(name);
    await as('rollout-writer')('PUT', rolloutPath(name), {
      ...current,
      metadata: { ...current.metadata, labels: { team: 'network' } },
    }).then(expectStatus(200));
    const after = await stored(name);
    expect(stageOf(after, 'prod').approved).toBe(true);
    expect(recordOf(after, 'prod')).toMatchObject({ approvedBy: userOf('rollout-approver') });
  });

  it('withdrawing an approval needs only the write verb; its record goes with it', async () => {
    const name = await newRollout();
    await as('rollout-approver')('POST', approveRoute(name), { stage: 'prod' }).then(expectStatus(200));
    const index = STAGES.findIndex((stage) => stage.workspace === 'prod');
    await as('rollout-writer')(
      'PATCH',
      rolloutPath(name),
      [{ op: 'replace', path: `/spec/stages/${index}/approved`, value: false }],
      JSON_PATCH,
    ).then(expectStatus(200));
    const after = await stored(name);
    expect(stageOf(after, 'prod').approved).toBe(false);
    expect(recordOf(after, 'prod')).toBeUndefined();
  });

  it("loosening a stage's gate is approving it: switching off `required` or four eyes needs `approve`", async () => {
    const name = await newRollout();
    const before = await stored(name);
    const loosened = (workspace: string, approval: Record<string, unknown>) =>
      before.spec.stages.map((stage) => (stage.workspace === workspace ? { ...stage, approval } : stage));
    for (const [workspace, approval] of [
      ['prod', { required: false }],
      ['prod-eu', { required: true, distinctFromAuthor: false }],
    ] as const) {
      await as('rollout-writer')(
        'PATCH',
        rolloutPath(name),
        { spec: { stages: loosened(workspace, approval) } },
        MERGE,
      ).then(expectStatus(403));
    }
    expect(await stored(name)).toEqual(before);
    await as('rollout-approver')(
      'PATCH',
      rolloutPath(name),
      { spec: { stages: loosened('prod', { required: false }) } },
      MERGE,
    ).then(expectStatus(200));
  });

  it('the deprecated `requireApproval: true` gates a stage as `approval.required` does', async () => {
    const name = `approvals-deprecated-${++rollouts}`;
    await as('admin')(
      'POST',
      `${API}/namespaces/${TEAM_PROJECT}/rollouts`,
      rolloutObject(name, 'r1', [{ workspace: 'legacy', requireApproval: true }]),
    ).then(expectStatus(201));
    await as('rollout-writer')('POST', approveRoute(name), { stage: 'legacy' }).then(expectStatus(403));
    const approved = await as('rollout-approver')('POST', approveRoute(name), { stage: 'legacy' }).then(
      expectStatus(200),
    );
    expect(stageOf(approved, 'legacy').approved).toBe(true);
  });
});

describe('issue 37: a new revision withdraws the approvals given for the one before', () => {
  it('a writer changes spec.revision: approved stages are withdrawn (with a warning), and the writer is the new author', async () => {
    const name = await newRollout();
    await as('rollout-approver')('POST', approveRoute(name), { stage: 'prod' }).then(expectStatus(200));
    const response = await as('rollout-writer')('PATCH', rolloutPath(name), { spec: { revision: 'r2' } }, MERGE);
    const answer = await expectStatus(200)(response);
    expect(response.headers.get('warning')).toContain('the approval of stage prod was withdrawn');
    expect(stageOf(answer, 'prod').approved).toBe(false);
    const after = await stored(name);
    expect(stageOf(after, 'prod').approved).toBe(false);
    expect(recordOf(after, 'prod')).toBeUndefined();
    expect(after.status?.revisionAuthor).toMatchObject({ principal: userOf('rollout-writer'), revision: 'r2' });
    expect(audit.completed(response).annotations).toMatchObject({ 'platform-api/withdrawn-approvals': 'prod' });
  });

  it('a server-side apply of a new revision takes the withdrawal along, whatever its configuration says', async () => {
    const name = await newRollout();
    await as('rollout-approver')('POST', approveRoute(name), { stage: 'prod' }).then(expectStatus(200));
    await as('rollout-writer')(
      'PATCH',
      `${rolloutPath(name)}?fieldManager=approvals-test`,
      JSON.stringify(rolloutObject(name, 'r2', withApproved(STAGES, 'prod'))),
      APPLY,
    ).then(expectStatus(200));
    const after = await stored(name);
    expect({ revision: after.spec.revision, approved: stageOf(after, 'prod').approved }).toEqual({
      revision: 'r2',
      approved: false,
    });
  });
});

describe("issue 37, item 2: four eyes (approval.distinctFromAuthor): the revision's author may not approve, the admin included", () => {
  it('the author of the revision is refused (409 ApproverIsAuthor) on the route and by a patch; another approver succeeds', async () => {
    const name = await newRollout();
    await as('rollout-approver')('PATCH', rolloutPath(name), { spec: { revision: 'r2' } }, MERGE).then(
      expectStatus(200),
    );
    const before = await stored(name);
    const refused = await as('rollout-approver')('POST', approveRoute(name), { stage: 'prod-eu' }).then(
      expectStatus(409),
    );
    expect(refused).toMatchObject({ reason: 'ApproverIsAuthor' });
    await WRITE_PATHS['a merge patch']!('rollout-approver', name, 'prod-eu')
      .then(expectStatus(409))
      .then((status) => expect(status).toMatchObject({ kind: 'Status', reason: 'ApproverIsAuthor' }));
    expect(await stored(name)).toEqual(before);
    // A stage without four eyes the author may approve.
    await as('rollout-approver')('POST', approveRoute(name), { stage: 'prod' }).then(expectStatus(200));
    await as('second-approver')('POST', approveRoute(name), { stage: 'prod-eu' }).then(expectStatus(200));
    expect(recordOf(await stored(name), 'prod-eu')).toMatchObject({
      approvedBy: userOf('second-approver'),
      revision: 'r2',
    });
  });

  it('the admin bypasses authorization, not four eyes: it may not approve the revision it wrote', async () => {
    const name = await newRollout('admin');
    expect((await as('admin')('POST', approveRoute(name), { stage: 'prod-eu' }).then(expectStatus(409))).reason).toBe(
      'ApproverIsAuthor',
    );
    await as('rollout-approver')('POST', approveRoute(name), { stage: 'prod-eu' }).then(expectStatus(200));
  });

  it('one write that changes the revision and approves a four-eyes stage is refused: its writer is the new author', async () => {
    const name = await newRollout();
    const current = await stored(name);
    const refused = await as('rollout-approver')(
      'PATCH',
      rolloutPath(name),
      { spec: { revision: 'r3', stages: withApproved(current.spec.stages, 'prod-eu') } },
      MERGE,
    ).then(expectStatus(409));
    expect(refused.reason).toBe('ApproverIsAuthor');
    expect(await stored(name)).toEqual(current);
  });

  it('a revision whose author is not recorded (written outside the API) cannot be approved under four eyes until written through it', async () => {
    const name = `approvals-outside-${++rollouts}`;
    await platform().clusterAdmin.send({
      method: 'POST',
      path: `${API}/namespaces/${TEAM_PROJECT}/rollouts`,
      body: rolloutObject(name),
    });
    const refused = await as('second-approver')('POST', approveRoute(name), { stage: 'prod-eu' }).then(
      expectStatus(409),
    );
    expect(refused).toMatchObject({ reason: 'RevisionAuthorUnknown' });
    await as('rollout-approver')('POST', approveRoute(name), { stage: 'prod' }).then(expectStatus(200));
    await as('rollout-writer')('PATCH', rolloutPath(name), { spec: { revision: 'r2' } }, MERGE).then(expectStatus(200));
    await as('second-approver')('POST', approveRoute(name), { stage: 'prod-eu' }).then(expectStatus(200));
  });
});

describe("issue 37, item 2: approval records are the server's: what a client writes through /status is never stored", () => {
  const forged = {
    revisionAuthor: { principal: 'mallory', revision: 'r1', changedAt: '2020-01-01T00:00:00Z' },
    stages: [
      {
        workspace: 'prod',
        phase: 'Pending',
        approval: { approvedBy: 'mallory', approvedAt: '2020-01-01T00:00:00Z', revision: 'r1' },
      },
      { workspace: 'prod-eu', approval: { approvedBy: 'mallory', approvedAt: '2020-01-01T00:00:00Z', revision: 'r1' } },
    ],
  };

  it('a merge patch and a PUT of the status keep the stored records (and set no spec): the other status fields are written', async () => {
    const name = await newRollout();
    await as('rollout-approver')('POST', approveRoute(name), { stage: 'prod' }).then(expectStatus(200));
    const approved = await stored(name);
    await as('rollout-writer')(
      'PATCH',
      `${rolloutPath(name)}/status`,
      {
        spec: { stages: withApproved(approved.spec.stages, 'prod-eu') },
        status: { phase: 'AwaitingApproval', ...forged },
      },
      MERGE,
    ).then(expectStatus(200));
    let after = await stored(name);
    expect(after.status).toMatchObject({ phase: 'AwaitingApproval', revisionAuthor: approved.status!.revisionAuthor });
    expect(recordOf(after, 'prod')).toEqual(recordOf(approved, 'prod'));
    expect(recordOf(after, 'prod-eu')).toBeUndefined();
    expect(after.status?.stages?.find((stage) => stage.workspace === 'prod')).toMatchObject({ phase: 'Pending' });
    expect(stageOf(after, 'prod-eu').approved).toBe(false);

    await as('rollout-writer')('PUT', `${rolloutPath(name)}/status`, {
      ...after,
      status: { phase: 'Progressing', ...forged },
    }).then(expectStatus(200));
    after = await stored(name);
    expect(after.status).toMatchObject({ phase: 'Progressing', revisionAuthor: approved.status!.revisionAuthor });
    expect(recordOf(after, 'prod')).toEqual(recordOf(approved, 'prod'));
    expect(recordOf(after, 'prod-eu')).toBeUndefined();
  });

  it('a JSON patch that removes the records, and a status that drops the stage list, leave them as stored', async () => {
    const name = await newRollout();
    await as('rollout-approver')('POST', approveRoute(name), { stage: 'prod' }).then(expectStatus(200));
    const approved = await stored(name);
    await as('rollout-writer')(
      'PATCH',
      `${rolloutPath(name)}/status`,
      [
        { op: 'remove', path: '/status/revisionAuthor' },
        { op: 'remove', path: '/status/stages' },
      ],
      JSON_PATCH,
    ).then(expectStatus(200));
    const after = await stored(name);
    expect(after.status?.revisionAuthor).toEqual(approved.status!.revisionAuthor);
    expect(recordOf(after, 'prod')).toEqual(recordOf(approved, 'prod'));
  });

  it('a status written at create is dropped (as for any kind), and the server records the creator as the author', async () => {
    const name = `approvals-forged-${++rollouts}`;
    await as('rollout-writer')('POST', `${API}/namespaces/${TEAM_PROJECT}/rollouts`, {
      ...rolloutObject(name),
      status: forged,
    }).then(expectStatus(201));
    const created = await stored(name);
    expect(created.status?.revisionAuthor).toMatchObject({ principal: userOf('rollout-writer'), revision: 'r1' });
    expect((created.status?.stages ?? []).some((stage) => stage.approval !== undefined)).toBe(false);
  });
});

describe('issue 37: the approve route refuses what is not an approval (404, 409), and changes nothing', () => {
  it.each([
    ['a stage that needs no approval', 'staging', 409, 'ApprovalNotRequired'],
    ['a stage that is not there', 'nowhere', 404, 'StageNotFound'],
  ])('%s: %s %s', async (_case, stage, status, reason) => {
    const name = await newRollout();
    const before = await stored(name);
    expect(
      (await as('rollout-approver')('POST', approveRoute(name), { stage }).then(expectStatus(status))).reason,
    ).toBe(reason);
    expect(await stored(name)).toEqual(before);
  });

  it('a stage already approved: 409 AlreadyApproved; an unknown Rollout: 404 RolloutNotFound; no stage: 400', async () => {
    const name = await newRollout();
    await as('rollout-approver')('POST', approveRoute(name), { stage: 'prod' }).then(expectStatus(200));
    expect(
      (await as('second-approver')('POST', approveRoute(name), { stage: 'prod' }).then(expectStatus(409))).reason,
    ).toBe('AlreadyApproved');
    expect(
      (await as('rollout-approver')('POST', approveRoute('no-such-rollout'), { stage: 'prod' }).then(expectStatus(404)))
        .reason,
    ).toBe('RolloutNotFound');
    await as('rollout-approver')('POST', approveRoute(name), {}).then(expectStatus(400));
    await as('rollout-approver')('POST', approveRoute(name), { stage: 'prod', approved: false }).then(
      expectStatus(400),
    );
  });
});

describe('issue 37, item 2: the audit trail has an event for each approval with both principals', () => {
  it("an approval by the route and one by a patch: the approver, the revision's author, the stages and the revision", async () => {
    const name = await newRollout('rollout-writer');
    const byRoute = await as('rollout-approver')('POST', approveRoute(name), { stage: 'prod' });
    await expectStatus(200)(byRoute);
    expect(audit.completed(byRoute)).toMatchObject({
      verb: 'approve',
      user: { username: userOf('rollout-approver') },
      objectRef: { resource: 'rollouts', namespace: TEAM_PROJECT, name },
      annotations: {
        'authorization.k8s.io/decision': 'allow',
        'platform-api/approver': userOf('rollout-approver'),
        'platform-api/author': userOf('rollout-writer'),
        'platform-api/approved-stages': 'prod',
        'platform-api/approved-revision': 'r1',
      },
    });
    const byPatch = await WRITE_PATHS['a JSON patch']!('second-approver', name, 'prod-eu');
    await expectStatus(200)(byPatch);
    expect(audit.completed(byPatch)).toMatchObject({
      verb: 'patch',
      annotations: {
        'platform-api/approver': userOf('second-approver'),
        'platform-api/author': userOf('rollout-writer'),
        'platform-api/approved-stages': 'prod-eu',
      },
    });
  });

  it('a refused approval is recorded as refused, naming the verb, with both principals', async () => {
    const name = await newRollout();
    const refused = await WRITE_PATHS['a merge patch']!('rollout-writer', name, 'prod');
    await expectStatus(403)(refused);
    const event = audit.completed(refused);
    expect(event.annotations).toMatchObject({
      'authorization.k8s.io/decision': 'forbid',
      'authorization.k8s.io/reason': expect.stringContaining('may not approve rollouts'),
      'platform-api/approver': userOf('rollout-writer'),
      'platform-api/author': 'admin',
    });
    expect(event.annotations).not.toHaveProperty('platform-api/approved-stages');
  });
});

describe('issue 37, item 4: a SelfSubjectAccessReview answers truly whether a caller may approve a Rollout', () => {
  it('yes for the approvers and the admin, no for the writer; and each answer is what the route then does', async () => {
    const mayApprove = async (who: Who) =>
      (
        await as(who)('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
          spec: {
            resourceAttributes: {
              verb: 'approve',
              group: GROUP,
              resource: 'rollouts',
              namespace: TEAM_PROJECT,
              name: 'x',
            },
          },
        }).then(expectStatus(201))
      ).status.allowed as boolean;
    const callers: Who[] = ['admin', 'rollout-approver', 'approve-only', 'rollout-writer'];
    const answers = await Promise.all(callers.map(mayApprove));
    expect(answers).toEqual([true, true, true, false]);
    for (const [index, who] of callers.entries()) {
      const name = await newRollout('second-approver');
      const status = (await as(who)('POST', approveRoute(name), { stage: 'prod' })).status;
      expect(status, who).toBe(answers[index] ? 200 : 403);
    }
  });
});
