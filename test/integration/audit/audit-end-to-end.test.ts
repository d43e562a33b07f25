// Issue 22, Show (and issue 26: the trail holds no sensitive value a run printed): "an end-to-end test through the gateway: an admin session, an OIDC user mapped to a
// namespaced Role (allowed and refused requests), a controller; every event is found by the API and in
// standard output with the right user, verb, objectRef, decision and status; no secret appears
// anywhere (a scan for every secret the test used)". Standard output is the real sink (the same
// serialisation and batched writer) over a line collector; the database is the real PostgreSQL.
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../../shared/domain/audit/audit-event.ts';
import { StdoutAuditSink } from '../../../shared/domain/audit/stdout-audit-sink.ts';
import { BatchedLineWriter } from '../../../shared/base/logging/batched-line-writer.ts';
import { ADMIN_PASSWORD } from '../../support/admin-fixtures.ts';
import { login } from '../../support/function-servers.ts';
import { TEST_NAMESPACE } from '../../support/identity-cluster.ts';
import { kubeAuditEventErrors } from '../../support/kube-audit-event-schema.ts';
import {
  API,
  OIDC_USERNAME,
  OTHER_PROJECT,
  TEAM_PROJECT,
  callAs,
  expectStatus,
  usePlatform,
  variableSetObject,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const written: string[] = [];
const stdout = new StdoutAuditSink(
  new BatchedLineWriter({ write: (chunk: string) => written.push(chunk) }, { maxDelayMs: 10 }),
);
const platform = usePlatform({}, { auditSinks: [stdout] });
type Who = 'admin' | 'oidcUser' | 'controller';
const as = (who: Who) => callAs(platform, who);
const SENSITIVE = 'e2e-sensitive-value-9f3a';
const CONTROLLER = `system:serviceaccount:${TEST_NAMESPACE}:workspace-controller`;

/** The audit lines written to standard output, parsed. */
const stdoutEvents = (): AuditEvent[] =>
  written
    .join('')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditEvent);

/** What must be the same wherever an event is found. */
const essentials = (event: AuditEvent) => ({
  user: event.user.username,
  verb: event.verb,
  objectRef: event.objectRef,
  decision: event.annotations?.['authorization.k8s.io/decision'],
  code: event.responseStatus?.code,
});

describe('issue 22, end to end: an admin session, an OIDC user allowed and refused, a controller', () => {
  const steps: { name: string; response: Response; user: string; verb: string; decision?: string; code: number }[] = [];
  let leaseId = '';

  it('drives the session', async () => {
    const step = async (
      name: string,
      response: Response,
      expected: Omit<(typeof steps)[number], 'name' | 'response'>,
    ) => {
      expect(response.status, `${name}: ${await response.clone().text()}`).toBe(expected.code);
      steps.push({ name, response, ...expected });
      return response;
    };
    // The user the login established (issue 38, item 8).
    await step('admin login', await login(platform().gateway.url, ADMIN_PASSWORD), {
      user: 'admin',
      verb: 'post',
      code: 200,
    });
    await step(
      'admin creates a VariableSet with a sensitive value',
      await as('admin')(
        'POST',
        `${API}/namespaces/${TEAM_PROJECT}/variablesets`,
        variableSetObject('e2e-vars', [{ name: 'TOKEN', sensitive: true, value: SENSITIVE }]),
      ),
      {
        user: 'admin',
        verb: 'create',
        decision: 'allow',
        code: 201,
      },
    );
    const workspace = {
      ...workspaceObject('e2e-ws'),
      spec: { ...(workspaceObject('e2e-ws').spec as object), variableSetRefs: [{ name: 'e2e-vars' }] },
    };
    await step(
      'OIDC user creates a Workspace in its Project',
      await as('oidcUser')('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspace),
      {
        user: OIDC_USERNAME,
        verb: 'create',
        decision: 'allow',
        code: 201,
      },
    );
    await step(
      'OIDC user is refused in another Project',
      await as('oidcUser')('POST', `${API}/namespaces/${OTHER_PROJECT}/workspaces`, workspaceObject('e2e-no')),
      {
        user: OIDC_USERNAME,
        verb: 'create',
        decision: 'forbid',
        code: 403,
      },
    );
    const started = await step(
      'OIDC user starts a run',
      await as('oidcUser')('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/e2e-ws/runs`, {
        type: 'plan',
        message: 'e2e',
      }),
      {
        user: OIDC_USERNAME,
        verb: 'create',
        decision: 'allow',
        code: 201,
      },
    );
    const run = (await started.clone().json()) as { id: string };
    const claimed = await step(
      'controller claims it',
      await as('controller')('POST', '/internal/runs/claim', {
        project: TEAM_PROJECT,
        workspace: 'e2e-ws',
        leaseSeconds: 60,
      }),
      {
        user: CONTROLLER,
        verb: 'post',
        decision: 'allow',
        code: 200,
      },
    );
    leaseId = ((await claimed.clone().json()) as { lease: { id: string } }).lease.id;
    await step(
      'controller reads the variables',
      await as('controller')('GET', `/internal/runs/${run.id}/variables`, undefined, { 'run-lease': leaseId }),
      {
        user: CONTROLLER,
        verb: 'get',
        decision: 'allow',
        code: 200,
      },
    );
    await step(
      'controller appends a log line that prints the sensitive value',
      await as('controller')('POST', `/internal/runs/${run.id}/logs`, {
        leaseId,
        firstSeq: 1,
        lines: [`token is ${SENSITIVE}`],
      }),
      { user: CONTROLLER, verb: 'post', decision: 'allow', code: 200 },
    );
    await step(
      'controller finishes the run',
      await as('controller')('POST', `/internal/runs/${run.id}/phase`, {
        leaseId,
        phase: 'Succeeded',
        message: 'done',
      }),
      {
        user: CONTROLLER,
        verb: 'post',
        decision: 'allow',
        code: 200,
      },
    );
    expect(steps).toHaveLength(9);
  });

  it('finds every step by the API and in standard output, the same in both, as it happened', async () => {
    stdout.close();
    for (const step of steps) {
      const auditId = step.response.headers.get('audit-id');
      const fromStdout = stdoutEvents().filter((event) => event.auditID === auditId);
      expect(fromStdout, step.name).toHaveLength(1);
      let fromApi: AuditEvent[] = [];
      await expect
        .poll(
          async () => {
            const list = await as('admin')(
              'GET',
              `/api/v1alpha1/audit/events?limit=500&user=${encodeURIComponent(step.user)}`,
            ).then(expectStatus(200));
            fromApi = (list as { items: AuditEvent[] }).items.filter((event) => event.auditID === auditId);
            return fromApi.length;
          },
          { timeout: 10_000 },
        )
        .toBe(1);
      expect(essentials(fromApi[0]!), step.name).toEqual(essentials(fromStdout[0]!));
      expect(essentials(fromStdout[0]!), step.name).toMatchObject({
        user: step.user,
        verb: step.verb,
        decision: step.decision,
        code: step.code,
      });
    }
    // The run's whole story, found by its id: started, claimed, variables read, finished.
    const runId = (
      (await steps
        .find((step) => step.name === 'OIDC user starts a run')!
        .response.clone()
        .json()) as { id: string }
    ).id;
    const story = (await as('admin')('GET', `/api/v1alpha1/audit/events?run=${runId}`).then(expectStatus(200))) as {
      items: AuditEvent[];
    };
    expect(
      story.items.map((event) => `${event.user.username} ${event.verb} ${event.requestURI.replace(runId, '<run>')}`),
    ).toEqual([
      `${OIDC_USERNAME} create /api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/e2e-ws/runs`,
      `${CONTROLLER} post /internal/runs/claim`,
      `${CONTROLLER} get /internal/runs/<run>/variables`,
      `${CONTROLLER} post /internal/runs/<run>/logs`,
      `${CONTROLLER} post /internal/runs/<run>/phase`,
    ]);
    const runStep = steps.find((step) => step.name === 'controller reads the variables')!;
    const [variablesRead] = stdoutEvents().filter(
      (event) => event.auditID === runStep.response.headers.get('audit-id'),
    );
    expect(variablesRead!.requestURI).toMatch(/^\/internal\/runs\/[0-9a-f-]{36}\/variables$/);
  });

  it('every line is a valid audit.k8s.io/v1 Event, and no secret the test used appears in any line or API answer', async () => {
    for (const event of stdoutEvents()) expect(kubeAuditEventErrors(event)).toEqual([]);
    const everything = [
      written.join(''),
      JSON.stringify(await as('admin')('GET', '/api/v1alpha1/audit/events?limit=500').then(expectStatus(200))),
    ].join('\n');
    const { admin, oidcUser, serviceAccount, controller } = platform().tokens;
    for (const secret of [ADMIN_PASSWORD, admin, oidcUser, serviceAccount, controller, leaseId, SENSITIVE, 'Bearer ']) {
      expect(everything.includes(secret), `a secret reached the audit trail: ${secret.slice(0, 8)}…`).toBe(false);
    }
  });
});

describe('issue 22: a lease that lapses is in the trail, with the claim that collected it', () => {
  it('the next claim names the lapsed run and what became of it; the run is found by its id', async () => {
    const ws = { ...workspaceObject('e2e-lapse'), spec: workspaceObject('e2e-lapse').spec };
    await as('admin')('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, ws).then(expectStatus(201));
    const run = (await as('admin')('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/e2e-lapse/runs`, {
      type: 'plan',
    }).then(expectStatus(201))) as { id: string };
    await as('controller')('POST', '/internal/runs/claim', {
      project: TEAM_PROJECT,
      workspace: 'e2e-lapse',
      leaseSeconds: 1,
    }).then(expectStatus(200));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const next = await as('controller')('POST', '/internal/runs/claim', {
      project: TEAM_PROJECT,
      workspace: 'e2e-lapse',
    });
    expect(next.status).toBe(200);
    await stdout.close();
    const [claim] = stdoutEvents().filter((event) => event.auditID === next.headers.get('audit-id'));
    expect(claim!.annotations!['platform-api/lapsed-leases']).toContain(`${run.id}=Pending`);
    expect(claim!.objectRef).toMatchObject({ resource: 'runs', uid: run.id });
  });
});
