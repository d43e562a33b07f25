// Issue 22, items 2 and 3: at the `Request` level an event also records the request body, passed
// through what hides sensitive values: a Project's, Workspace's or Rollout's body as sent, a
// VariableSet's never (its sensitive values must not reach any log).
import { describe, expect, it } from 'vitest';
import { AuditCapture } from '../../support/audit-capture.ts';
import {
  API,
  TEAM_PROJECT,
  send,
  usePlatform,
  variableSetObject,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const capture = new AuditCapture();
const platform = usePlatform({ AUDIT_POLICY: 'Request' }, { auditSinks: [capture] });
const admin = (method: string, path: string, body?: unknown) =>
  send(platform().gateway.url, platform().tokens.admin, method, path, body);
const SECRET_VALUE = 'hunter2-audit-request-level';

describe('issue 22: AUDIT_POLICY=Request', () => {
  it("records a Workspace's body as sent, as requestObject", async () => {
    const body = workspaceObject('request-level');
    const response = await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, body);
    expect(response.status).toBe(201);
    expect(capture.completed(response)).toMatchObject({ level: 'Request', requestObject: body });
  });

  it("never records a VariableSet's body: its sensitive value is nowhere in the events", async () => {
    const response = await admin(
      'POST',
      `${API}/namespaces/${TEAM_PROJECT}/variablesets`,
      variableSetObject('request-level-vars', [{ name: 'TOKEN', sensitive: true, value: SECRET_VALUE }]),
    );
    expect(response.status).toBe(201);
    expect(capture.completed(response).requestObject).toBeUndefined();
    expect(JSON.stringify(capture.events)).not.toContain(SECRET_VALUE);
  });

  it('records reads too, at this level, without a body', async () => {
    const response = await admin('GET', `${API}/namespaces/${TEAM_PROJECT}/workspaces`);
    expect(response.status).toBe(200);
    expect(capture.completed(response)).toMatchObject({ level: 'Request', verb: 'list' });
    expect(capture.completed(response).requestObject).toBeUndefined();
  });
});
