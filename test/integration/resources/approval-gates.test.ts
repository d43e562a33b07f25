// Issue 45, item 1 (docs/resources.md "Approvals"), replayed through the gateway as an attacker with ordinary
// rights would: turning a Workspace's apply gates off needs the right to approve its plans, on every write path.
import { describe, expect, it, beforeAll } from 'vitest';
import type { V1PolicyRule } from '@kubernetes/client-node';
import { AuditCapture } from '../../support/audit-capture.ts';
import {
  API,
  GROUP,
  TEAM_PROJECT,
  bindRole,
  expectStatus,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const audit = new AuditCapture();
const platform = usePlatform({}, { auditSinks: [audit] });

const WORKSPACE_WRITES: V1PolicyRule = {
  apiGroups: [GROUP],
  resources: ['workspaces'],
  verbs: ['get', 'list', 'create', 'update', 'patch', 'delete'],
};
/** Each caller's Role in TEAM_PROJECT: both write Workspaces; only one may approve their plans. */
const ROLES = {
  'workspace-writer': [WORKSPACE_WRITES, { apiGroups: [GROUP], resources: ['workspaces/runs'], verbs: ['create'] }],
  'apply-approver': [WORKSPACE_WRITES, { apiGroups: [GROUP], resources: ['workspaces/runs'], verbs: ['approve'] }],
} satisfies Record<string, V1PolicyRule[]>;
type Caller = keyof typeof ROLES;
const tokens = new Map<string, string>();
beforeAll(async () => {
  const { cluster } = platform();
  for (const [caller, rules] of Object.entries(ROLES)) {
    await cluster.createServiceAccount(caller);
    await bindRole(cluster, TEAM_PROJECT, caller, rules, caller);
    tokens.set(caller, await cluster.mintToken(caller));
  }
});

const WORKSPACES = `${API}/namespaces/${TEAM_PROJECT}/workspaces`;
const as = (caller: Caller | 'admin') => (method: string, path: string, body?: unknown, contentType?: string) =>
  send(
    platform().gateway.url,
    caller === 'admin' ? platform().tokens.admin : tokens.get(caller)!,
    method,
    path,
    body,
    contentType,
  );

let names = 0;
/** A Workspace with both apply gates on (the defaults), created by the admin. */
async function gatedWorkspace(): Promise<string> {
  const name = `gated-${++names}`;
  const object = workspaceObject(name) as { spec: Record<string, unknown> };
  delete object.spec.allowApplyWithoutPlan;
  await as('admin')('POST', WORKSPACES, object).then(expectStatus(201));
  return name;
}
const stored = async (name: string) =>
  (await as('admin')('GET', `${WORKSPACES}/${name}`).then(expectStatus(200))) as {
    metadata: { resourceVersion: string };
    spec: Record<string, unknown>;
  };

/** Each write path, turning `field` on in the Workspace `name`. */
const WRITE_PATHS: Record<string, (caller: Caller, name: string, field: string) => Promise<Response>> = {
  'merge patch': (caller, name, field) =>
    as(caller)('PATCH', `${WORKSPACES}/${name}`, { spec: { [field]: true } }, 'application/merge-patch+json'),
  'JSON patch': (caller, name, field) =>
    as(caller)(
      'PATCH',
      `${WORKSPACES}/${name}`,
      [{ op: 'add', path: `/spec/${field}`, value: true }],
      'application/json-patch+json',
    ),
  'server-side apply': (caller, name, field) => {
    const object = workspaceObject(name) as { spec: Record<string, unknown> };
    delete object.spec.allowApplyWithoutPlan;
    object.spec[field] = true;
    return as(caller)(
      'PATCH',
      `${WORKSPACES}/${name}?fieldManager=attacker&force=true`,
      object,
      'application/apply-patch+yaml',
    );
  },
  PUT: async (caller, name, field) => {
    const current = await stored(name);
    return as(caller)('PUT', `${WORKSPACES}/${name}`, {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'Workspace',
      metadata: { name, resourceVersion: current.metadata.resourceVersion },
      spec: { ...current.spec, [field]: true },
    });
  },
  'delete and re-create': async (caller, name, field) => {
    await as(caller)('DELETE', `${WORKSPACES}/${name}`).then(expectStatus(200));
    const object = workspaceObject(name) as { spec: Record<string, unknown> };
    delete object.spec.allowApplyWithoutPlan;
    object.spec[field] = true;
    return as(caller)('POST', WORKSPACES, object);
  },
};

describe("Issue 45, item 1: turning a Workspace's apply gates off needs the same right as approving (approve on workspaces/runs)", () => {
  for (const field of ['allowApplyWithoutPlan', 'autoApply'])
    for (const [path, write] of Object.entries(WRITE_PATHS)) {
      it(`${field}: true by ${path} with only the Workspace writes is 403, and nothing changes; with approve it is written`, async () => {
        const name = await gatedWorkspace();
        const refused = await write('workspace-writer', name, field).then(expectStatus(403));
        expect(refused).toMatchObject({
          reason: 'Forbidden',
          error: expect.stringContaining(`may not approve workspaces/runs.${GROUP} "${name}"`),
        });
        const after = await as('admin')('GET', `${WORKSPACES}/${name}`);
        if (after.status === 200) expect((await after.json()).spec[field]).not.toBe(true);
        else expect(after.status).toBe(404); // deleted by the writer, not re-created

        const other = await gatedWorkspace();
        await write('apply-approver', other, field).then(async (response) =>
          expect([200, 201]).toContain(response.status),
        );
        expect((await stored(other)).spec[field]).toBe(true);
      });
    }

  it('a writer without approve may still write the rest of a Workspace, and turn the gates back on', async () => {
    const name = await gatedWorkspace();
    await as('workspace-writer')(
      'PATCH',
      `${WORKSPACES}/${name}`,
      { spec: { source: { repository: 'https://git.example.com/other.git', path: 'network' } } },
      'application/merge-patch+json',
    ).then(expectStatus(200));
    await as('apply-approver')(
      'PATCH',
      `${WORKSPACES}/${name}`,
      { spec: { autoApply: true } },
      'application/merge-patch+json',
    ).then(expectStatus(200));
    await as('workspace-writer')(
      'PATCH',
      `${WORKSPACES}/${name}`,
      { spec: { autoApply: false } },
      'application/merge-patch+json',
    ).then(expectStatus(200));
  });

  it('the refusal is in the audit trail as forbidden, with its reason', async () => {
    const name = await gatedWorkspace();
    const response = await WRITE_PATHS['merge patch']!('workspace-writer', name, 'autoApply');
    expect(response.status).toBe(403);
    expect(audit.completed(response).annotations).toMatchObject({ 'authorization.k8s.io/decision': 'forbid' });
  });
});
