// Issue 45, item 3 (its remainder): a Project write whose approval windows cannot be evaluated (a bad cron, an
// unknown time zone, an end before its start, ...) is refused with 422 `Invalid` naming the field, on every write
// path (create, PUT, merge and JSON patch, server-side apply; a strategic merge patch is 415, as for every custom
// resource), and nothing is written. Before, such a window was stored and then refused every approval and apply
// ("cannot be evaluated", failing closed) until someone noticed.
import { describe, expect, it } from 'vitest';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import { API, callAs, expectStatus, projectObject, usePlatform } from '../../support/platform-fixture.ts';

const platform = usePlatform();
const admin = callAs(platform, 'admin');
const projectPath = (name: string) => `${API}/projects/${name}`;
const stored = (name: string) => platform().clusterAdmin.find<PlatformObject>(projectPath(name));

const GOOD = {
  name: 'office-hours',
  kind: 'allow',
  schedule: '0 9 * * 1-5',
  duration: '8h',
  timeZone: 'Europe/Berlin',
  appliesTo: { rollouts: ['*'] },
};
/** Each invalid window, and the field of `spec.approvalPolicy.windows[1]` the refusal names. */
const INVALID: Array<[string, string, Record<string, unknown>]> = [
  ['a malformed cron', 'schedule', { ...GOOD, name: 'bad', schedule: 'every weekday' }],
  ['a 6-field cron', 'schedule', { ...GOOD, name: 'bad', schedule: '0 0 9 * * 1-5' }],
  ['an unknown time zone', 'timeZone', { ...GOOD, name: 'bad', timeZone: 'Europe/Atlantis' }],
  ['a duration above 744h', 'duration', { ...GOOD, name: 'bad', duration: '800h' }],
  [
    'an end before its start',
    'end',
    { name: 'bad', kind: 'deny', start: '2026-12-27T00:00:00Z', end: '2026-12-24T00:00:00Z', appliesTo: {} },
  ],
];
const policyWith = (window: Record<string, unknown>) => ({ windows: [GOOD, window] });

/** The 422 of an invalid window: Kubernetes' `Invalid` Status with one cause naming the window's field. */
async function expectInvalidWindow(response: Response, field: string): Promise<void> {
  const status = await expectStatus(422)(response);
  expect(status).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422 });
  expect(status.message).toContain(`spec.approvalPolicy.windows[1].${field}`);
  expect(status.details.causes).toEqual([
    { reason: 'FieldValueInvalid', field: `spec.approvalPolicy.windows[1].${field}`, message: expect.any(String) },
  ]);
}

let projects = 0;
/** A Project with a valid approval policy, created by the admin. */
async function newProject(): Promise<PlatformObject> {
  const name = `windows-valid-${++projects}`;
  return admin('POST', `${API}/projects`, projectObject(name, { approvalPolicy: { windows: [GOOD] } })).then(
    expectStatus(201),
  );
}

describe('Issue 45, item 3: a Project write with a window that cannot be evaluated is refused, naming the field', () => {
  it.each(INVALID)(
    'create with %s: 422 naming spec.approvalPolicy.windows[1].%s; no Project',
    async (_c, field, window) => {
      const name = `windows-invalid-${++projects}`;
      await expectInvalidWindow(
        await admin('POST', `${API}/projects`, projectObject(name, { approvalPolicy: policyWith(window) })),
        field,
      );
      expect(await stored(name)).toBeUndefined();
    },
  );

  it.each(INVALID)(
    'PUT, merge patch, JSON patch and server-side apply with %s: 422 naming windows[1].%s; nothing changes',
    async (_c, field, window) => {
      const project = await newProject();
      const name = project.metadata.name!;
      const before = await stored(name);
      const writes = [
        await admin('PUT', projectPath(name), {
          ...before,
          spec: { ...before!.spec, approvalPolicy: policyWith(window) },
        }),
        await admin(
          'PATCH',
          projectPath(name),
          { spec: { approvalPolicy: policyWith(window) } },
          { 'content-type': 'application/merge-patch+json' },
        ),
        await admin(
          'PATCH',
          projectPath(name),
          [{ op: 'add', path: '/spec/approvalPolicy/windows/-', value: window }],
          {
            'content-type': 'application/json-patch+json',
          },
        ),
        await admin(
          'PATCH',
          `${projectPath(name)}?fieldManager=window-validation`,
          projectObject(name, { approvalPolicy: policyWith(window) }),
          { 'content-type': 'application/apply-patch+yaml' },
        ),
      ];
      for (const refused of writes) await expectInvalidWindow(refused, field);
      expect(await stored(name)).toEqual(before);
    },
  );

  it('a strategic merge patch is 415 (custom resources have none), and nothing changes', async () => {
    const project = await newProject();
    const name = project.metadata.name!;
    const before = await stored(name);
    await admin(
      'PATCH',
      projectPath(name),
      { spec: { approvalPolicy: policyWith(INVALID[0]![2]) } },
      {
        'content-type': 'application/strategic-merge-patch+json',
      },
    ).then(expectStatus(415));
    expect(await stored(name)).toEqual(before);
  });

  it('valid windows, a cron one and a range, are accepted on create and on a patch', async () => {
    const project = await newProject();
    const range = {
      name: 'holidays',
      kind: 'deny',
      start: '2026-12-24T00:00:00Z',
      end: '2026-12-27T00:00:00Z',
      appliesTo: {},
    };
    const patched = await admin(
      'PATCH',
      projectPath(project.metadata.name!),
      { spec: { approvalPolicy: { windows: [GOOD, range] } } },
      { 'content-type': 'application/merge-patch+json' },
    ).then(expectStatus(200));
    expect(patched.spec.approvalPolicy.windows).toEqual([GOOD, range]);
  });

  it('a write that leaves the policy as it is passes, even with a window stored outside the API that cannot be read', async () => {
    const project = await newProject();
    const name = project.metadata.name!;
    // Written to the cluster directly, past the API server (as an operator's script might).
    await platform().clusterAdmin.send({
      method: 'PATCH',
      path: projectPath(name),
      body: { spec: { approvalPolicy: policyWith(INVALID[0]![2]) } },
      contentType: 'application/merge-patch+json',
    });
    const renamed = await admin(
      'PATCH',
      projectPath(name),
      { spec: { displayName: 'renamed' } },
      {
        'content-type': 'application/merge-patch+json',
      },
    ).then(expectStatus(200));
    expect(renamed.spec.displayName).toBe('renamed');
  });
});
