// Local mode: `npm start` without a cluster serves the resource routes from the built-in emulator,
// seeded with an example Project, and says so in its start-up log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../../knative/node-http/running-server.ts';
import { capturingLogger, loginToken, startTestGateway } from '../../support/function-servers.ts';
import { startTestDatabase, type TestDatabase } from '../../support/test-database.ts';
import { API, expectStatus, send } from '../../support/platform-fixture.ts';

describe('Local mode: without a cluster, the routes are served from the emulator, seeded with an example Project, Workspace, VariableSet and Rollout', () => {
  const logger = capturingLogger();
  let database: TestDatabase;
  let gateway: RunningServer;
  let token: string;
  beforeAll(async () => {
    database = await startTestDatabase();
    gateway = await startTestGateway({ DATABASE_URL: database.connectionString }, { logger });
    token = await loginToken(gateway.url, 'admin');
  });
  afterAll(async () => {
    await gateway.close();
    await database.destroy();
  });
  const get = (path: string) => send(gateway.url, token, 'GET', path).then(expectStatus(200));

  it('says so plainly in the start-up log', () => {
    const seeded = logger.lines.find((line) => line.includes('local mode:'));
    expect(seeded).toMatch(/built-in Kubernetes emulator.*seeded with Project \\"demo\\"/);
  });

  it('serves the example Project with its namespace, VariableSet, Workspaces and Rollout', async () => {
    expect(await get(`${API}/projects/demo`)).toMatchObject({ status: { namespace: 'demo', phase: 'Active' } });
    const variableSet = await get(`${API}/namespaces/demo/variablesets/common`);
    // category and hcl are the VariableSet schema's defaults, which the cluster fills in.
    expect(variableSet.spec.variables).toContainEqual({
      name: 'db_password',
      sensitive: true,
      category: 'terraform',
      hcl: false,
      valueFrom: { secretKeyRef: { name: 'variableset-common', key: 'db_password' } },
    });
    const workspaces = await get(`${API}/namespaces/demo/workspaces`);
    expect(workspaces.items.map((item: { metadata: { name: string } }) => item.metadata.name).sort()).toEqual([
      'network-production',
      'network-staging',
    ]);
    expect(await get(`${API}/namespaces/demo/rollouts/network-v2`)).toMatchObject({
      spec: {
        stages: [{ workspace: 'network-staging' }, { workspace: 'network-production', approval: { required: true } }],
      },
    });
  });

  it("the example Rollout's gated stage is approved through the approve route (issue 37), and the approval recorded", async () => {
    const approved = await send(gateway.url, token, 'POST', '/api/v1alpha1/projects/demo/rollouts/network-v2/approve', {
      stage: 'network-production',
    }).then(expectStatus(200));
    expect(approved.spec.stages[1]).toMatchObject({ workspace: 'network-production', approved: true });
    // The gate and the approver's record, in the one status write (issue 43 item 7).
    const record = { approvedBy: 'admin', approvedAt: expect.any(String), revision: 'v2.0.0' };
    expect(approved.status.stages).toContainEqual({
      workspace: 'network-production',
      approval: record,
      approvals: [record],
    });
  });

  it('records runs of the example Workspaces as started by admin', async () => {
    const run = await send(gateway.url, token, 'POST', '/api/v1alpha1/projects/demo/workspaces/network-staging/runs', {
      type: 'plan',
    }).then(expectStatus(201));
    expect(run).toMatchObject({ principal: 'admin', principalType: 'admin', phase: 'Pending' });
  });
});
