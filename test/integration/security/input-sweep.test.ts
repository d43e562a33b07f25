// Issue 20, item 3: nothing a client sends reaches storage unchecked. A sweep over the route table:
// every string field of every body and query schema with a NUL (U+0000, which PostgreSQL cannot hold),
// every integer field at 2^31, 2^53 and beyond the int4 range, every path parameter with a NUL: each is
// 400 with a JSON error naming the field, never a 500, and nothing is stored. The FIELDS come from the
// schemas, so a field or route added later is swept too; the valid request each value is planted in,
// and the expectation, are written out here. Resource bodies, which the cluster judges, are swept
// through the fields their documenting schema names. Real PostgreSQL, the emulated cluster, a run with
// a live lease.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM_KINDS } from '../../../shared/contract/kinds/platform-kinds.ts';
import { routeTable, type RouteDefinition } from '../../../shared/contract/routes/route-table.ts';
import {
  API,
  GROUP,
  TEAM_PROJECT,
  expectStatus,
  runTaskObject,
  send,
  usePlatform,
  validObject,
} from '../../support/platform-fixture.ts';
import { ENGINE_DELIVERY_ENV, useEngineDelivery } from '../../support/run-task-delivery.ts';
import {
  type RunTaskServer,
  sendCallback,
  startRunTaskServer,
  taskResultDocument,
} from '../../support/run-task-server.ts';
import { storedState } from '../../support/stored-state.ts';

const platform = usePlatform(ENGINE_DELIVERY_ENV);
// A run task server that takes each request and never answers: the file answers for it with its access token.
let taskServer: RunTaskServer;
const delivered = useEngineDelivery(platform, () => taskServer.received);
/** A run waiting for its (advisory) task: its result and the task's access token; a run failed by a mandatory one. */
let waitingTask: { taskResult: string; token: string };
let failedByTaskRunId: string;
const ROUTES = routeTable(GROUP);
/** The name of this file's object of every kind (the Workspace its run belongs to among them). */
const SWEPT = 'sweep-ws';
/** Integers no int4 column holds: 2^31 (one past the top), 3e9, 2^53 - 1, 2^53, 1e21, and one below the bottom. */
const OUT_OF_RANGE = [2 ** 31, 3e9, 2 ** 53 - 1, 2 ** 53, 1e21, -(2 ** 31) - 1];

type Who = 'admin' | 'controller' | 'serviceAccount' | 'task';
type Json = Record<string, unknown>;
/** The request a value is planted in: valid as it stands (the last test sends each and sees it accepted). */
interface ValidRequest {
  who: Who;
  body?: Json;
  query?: Record<string, string>;
  /** Path parameters other than the file's (another run, a Rollout that has a stage to approve). */
  params?: Record<string, string>;
  /** Headers the route reads besides the token (the run's lease of the plan's JSON upload). */
  headers?: Record<string, string>;
}

let runId: string;
let leaseId: string;
/** A plan run that succeeded, to approve for apply. */
let succeededPlanId: string;
/** A succeeded plan the admin approved, whose Workspace's applies need two approvers: its apply has not started. */
let approvedPlanId: string;
/** A Rollout with a stage that waits for approval. */
const GATED_ROLLOUT = `${SWEPT}-gated`;

/** The valid request of each route with a body or query schema, by operationId; the resource routes by operation. */
async function validRequest(route: RouteDefinition): Promise<ValidRequest> {
  const resource = route.resource;
  if (resource?.operation === 'list') return { who: 'admin', query: { limit: '5' } };
  if (resource?.operation === 'create') return { who: 'admin', body: validObject(resource.kind, 'sweep-created') };
  if (resource?.operation === 'replace' || resource?.operation === 'replaceStatus') {
    // The object as stored now: its resourceVersion is the current one.
    const item = pathOf(route).replace(/\/status$/, '');
    return {
      who: 'admin',
      body: await send(platform().gateway.url, platform().tokens.admin, 'GET', item).then(expectStatus(200)),
    };
  }
  const requests: Record<string, ValidRequest> = {
    startRun: { who: 'admin', body: { type: 'plan', message: 'swept' } },
    applyPlan: { who: 'admin', body: { message: 'swept' }, params: { run: succeededPlanId } },
    withdrawPlanApproval: { who: 'admin', body: { approver: 'admin' }, params: { run: approvedPlanId } },
    approveRollout: { who: 'admin', body: { stage: 'prod' }, params: { rollout: GATED_ROLLOUT } },
    // After the approval above (the route table's order): the admin withdraws it.
    withdrawRolloutApproval: { who: 'admin', body: { stage: 'prod' }, params: { rollout: GATED_ROLLOUT } },
    listWorkspaceRuns: { who: 'admin', query: { limit: '5' } },
    listProjectRuns: { who: 'admin', query: { limit: '5' } },
    listNotificationDeliveries: { who: 'admin', query: { limit: '5' } },
    listRunsInPhase: { who: 'controller', query: { phase: 'Running', limit: '5' } },
    listAuditEvents: {
      who: 'admin',
      query: {
        since: '2026-01-01T00:00:00Z',
        until: '2099-01-01T00:00:00Z',
        user: 'admin',
        verb: 'create',
        resource: 'workspaces',
        namespace: TEAM_PROJECT,
        name: SWEPT,
        run: '00000000-0000-4000-8000-000000000000',
        outcome: 'success',
        limit: '5',
      },
    },
    createSelfSubjectAccessReview: {
      who: 'serviceAccount',
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: {
          resourceAttributes: {
            namespace: TEAM_PROJECT,
            verb: 'get',
            group: 'platform.dev',
            version: 'v1alpha1',
            resource: 'workspaces',
            subresource: 'status',
            name: SWEPT,
          },
        },
      },
    },
    createSelfSubjectRulesReview: {
      who: 'serviceAccount',
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectRulesReview',
        spec: { namespace: TEAM_PROJECT },
      },
    },
    claimRun: { who: 'controller', body: { project: TEAM_PROJECT, workspace: SWEPT, leaseSeconds: 60 } },
    renewRunLease: { who: 'controller', body: { leaseId, leaseSeconds: 60 } },
    setRunPhase: { who: 'controller', body: { leaseId, phase: 'Failed', message: 'swept' } },
    appendRunLogs: { who: 'controller', body: { leaseId, firstSeq: 1, lines: ['swept'] } },
    putRunPlanJson: {
      who: 'controller',
      body: { format_version: '1.2', resource_changes: [] },
      headers: { 'run-lease': leaseId },
    },
    overrideRunTasks: { who: 'admin', body: { reason: 'swept' }, params: { run: failedByTaskRunId } },
    // The fixture's Role `ci` in the Project: the admin holds all it grants.
    createProjectToken: {
      who: 'admin',
      body: { name: 'swept-token', description: 'swept', role: { kind: 'Role', name: 'ci' }, lifetime: '1h' },
    },
    reportTaskResult: {
      who: 'task',
      body: { data: { type: 'task-results', attributes: { status: 'running', message: 'swept' } } },
      params: { taskResult: waitingTask.taskResult },
    },
  };
  const request = requests[route.operationId];
  if (!request) throw new Error(`${route.operationId}: a route with a body or query schema has no valid request here`);
  return request;
}

/** The path of a route with every parameter valid: the Project, the Workspace and the run of this file. */
function pathOf(route: RouteDefinition, replaced: Record<string, string> = {}): string {
  const values: Record<string, string> = {
    project: TEAM_PROJECT,
    namespace: TEAM_PROJECT,
    workspace: SWEPT,
    name: SWEPT,
    run: runId,
    rollout: SWEPT,
    notification: SWEPT,
    taskResult: waitingTask.taskResult,
    ...replaced,
  };
  return route.path.replace(/\{([a-zA-Z]+)\}/g, (_, name: string) => values[name]!);
}

type FieldPath = (string | number)[];
interface Field {
  path: FieldPath;
  type: 'string' | 'integer';
}

/** Every string (or enumerated) and integer field a schema describes, at any depth; an array's first element stands for all. */
function fieldsOf(schema: Json, path: FieldPath = []): Field[] {
  const types = [schema.type].flat();
  const fields: Field[] = [];
  if (path.length > 0 && (types.includes('string') || Array.isArray(schema.enum)))
    fields.push({ path, type: 'string' });
  if (path.length > 0 && types.includes('integer')) fields.push({ path, type: 'integer' });
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>))
    fields.push(...fieldsOf(property, [...path, name]));
  if (isJson(schema.items)) fields.push(...fieldsOf(schema.items, [...path, 0]));
  if (isJson(schema.additionalProperties)) fields.push(...fieldsOf(schema.additionalProperties, [...path, 'swept']));
  return fields;
}

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field as the refusal names it: `lines[0]`, `metadata.name`. */
function fieldName(path: FieldPath): string {
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index ? `.${part}` : part)).join('');
}

/** A copy of `body` with `value` at `path` (objects and arrays on the way made as needed). */
function planted(body: Json, path: FieldPath, value: unknown): Json {
  const copy = structuredClone(body);
  let container: Record<string | number, unknown> = copy;
  for (const [index, part] of path.entries()) {
    if (index === path.length - 1) container[part] = value;
    else {
      container[part] ??= typeof path[index + 1] === 'number' ? [] : {};
      container = container[part] as Record<string | number, unknown>;
    }
  }
  return copy;
}

/** The hostile values of a field: a NUL inside a string, or each integer out of range. */
function hostileValues(field: Field): unknown[] {
  return field.type === 'string' ? ['swept\u0000value'] : OUT_OF_RANGE;
}

interface Case {
  route: RouteDefinition;
  where: 'body' | 'query';
  field: Field;
  value: unknown;
}

/** Every route with a body or query schema, every field of it, every hostile value. */
function sweptCases(): Case[] {
  const casesOf = (route: RouteDefinition, where: Case['where'], schema: Json | undefined): Case[] =>
    schema
      ? fieldsOf(schema).flatMap((field) => hostileValues(field).map((value) => ({ route, where, field, value })))
      : [];
  return ROUTES.flatMap((route) => [
    ...casesOf(route, 'body', route.requestSchema),
    ...casesOf(route, 'query', route.querySchema),
  ]);
}

/**
 * A second valid request of a route whose body takes one of two shapes, for the fields of the other
 * shape: a SelfSubjectAccessReview asks about a resource or a non-resource URL, never both.
 */
const OTHER_SHAPES: Record<string, { fieldsUnder: string; request: ValidRequest }> = {
  createSelfSubjectAccessReview: {
    fieldsUnder: 'spec.nonResourceAttributes',
    request: {
      who: 'serviceAccount',
      body: { spec: { nonResourceAttributes: { path: '/internal/runs', verb: 'get' } } },
    },
  },
};

/** The valid request a field is planted in: the route's, or its other shape's when the field belongs there. */
async function validRequestFor(route: RouteDefinition, path: FieldPath): Promise<ValidRequest> {
  const other = OTHER_SHAPES[route.operationId];
  return other && path.join('.').startsWith(other.fieldsUnder) ? other.request : validRequest(route);
}

/** The valid request of the case's route with its value planted. */
async function hostileRequest({ route, where, field, value }: Case): Promise<ValidRequest> {
  const valid = await validRequestFor(route, field.path);
  return where === 'body'
    ? { ...valid, body: planted(valid.body ?? {}, field.path, value) }
    : { ...valid, query: { ...valid.query, [fieldName(field.path)]: String(value) } };
}

/** Sends `request` on `route`, its body as JSON and its query as the URL's. */
function sendOn(
  route: RouteDefinition,
  request: ValidRequest,
  path = pathOf(route, request.params),
): Promise<Response> {
  const query = new URLSearchParams(request.query ?? {}).toString();
  return fetch(`${platform().gateway.url}${path}${query ? `?${query}` : ''}`, {
    method: route.method === '*' ? 'POST' : route.method,
    headers: {
      authorization: `Bearer ${request.who === 'task' ? waitingTask.token : platform().tokens[request.who]}`,
      ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...request.headers,
    },
    ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
  });
}

/** Sends a request that must be refused: 400 with a JSON error whose message names `field`, and nothing stored (soft: the sweep lists every field that fails). */
async function expectRefused(what: string, answer: () => Promise<Response>, field: string): Promise<void> {
  const before = await storedState(platform());
  const response = await answer();
  const text = await response.text();
  expect.soft(response.status, `${what} → ${text.slice(0, 200)}`).toBe(400);
  expect.soft(response.headers.get('content-type'), what).toMatch(/^application\/json/);
  const error = JSON.parse(text) as { error?: string; message?: string; reason?: string };
  expect.soft(typeof error.reason, what).toBe('string');
  expect.soft(error.error ?? error.message, what).toContain(field);
  expect.soft(await storedState(platform()), `${what}: a refused request stored something`).toBe(before);
}

beforeAll(async () => {
  const admin = platform().tokens.admin;
  const url = platform().gateway.url;
  for (const kind of PLATFORM_KINDS) {
    const collection = kind.namespaced ? `${API}/namespaces/${TEAM_PROJECT}/${kind.plural}` : `${API}/${kind.plural}`;
    await send(url, admin, 'POST', collection, validObject(kind.kind, SWEPT)).then(expectStatus(201));
  }
  const run = await send(url, admin, 'POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/${SWEPT}/runs`, {
    type: 'plan',
  }).then(expectStatus(201));
  const claimed = await send(url, platform().tokens.controller, 'POST', '/internal/runs/claim', {
    project: TEAM_PROJECT,
    workspace: SWEPT,
  }).then(expectStatus(200));
  expect(claimed.run.id).toBe(run.id);
  runId = run.id;
  leaseId = claimed.lease.id;
  succeededPlanId = await succeededPlan(`${SWEPT}-planned`);
  approvedPlanId = await approvedPlan(`${SWEPT}-approved`);
  await runsWithTasks();
  await send(url, admin, 'POST', `${API}/namespaces/${TEAM_PROJECT}/rollouts`, {
    ...validObject('Rollout', GATED_ROLLOUT),
    spec: { revision: 'r1', stages: [{ workspace: 'prod', approval: { required: true } }] },
  }).then(expectStatus(201));
});

/**
 * Runs of a Workspace of their own, each waiting for its RunTask (issue 48), whose request the engine sent to the
 * file's task server: one whose advisory task is still to answer (its token), one failed by its mandatory task.
 */
async function runsWithTasks(): Promise<void> {
  taskServer = await startRunTaskServer(undefined, () => platform().gateway.url);
  const url = platform().gateway.url;
  const { admin } = platform().tokens;
  const runOf = async (enforcement: 'advisory' | 'mandatory') => {
    const workspace = `${SWEPT}-${enforcement}`;
    await send(
      url,
      admin,
      'POST',
      `${API}/namespaces/${TEAM_PROJECT}/workspaces`,
      validObject('Workspace', workspace),
    ).then(expectStatus(201));
    await send(
      url,
      admin,
      'POST',
      `${API}/namespaces/${TEAM_PROJECT}/runtasks`,
      runTaskObject(workspace, { url: taskServer.url, enforcement, workspaces: [workspace] }),
    ).then(expectStatus(201));
    const run = await send(url, admin, 'POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/${workspace}/runs`, {
      type: 'plan',
    }).then(expectStatus(201));
    const request = await delivered(run.id);
    return { runId: run.id as string, request };
  };
  const waiting = await runOf('advisory');
  waitingTask = { taskResult: waiting.request.payload.task_result_id, token: waiting.request.payload.access_token };
  const failing = await runOf('mandatory');
  const answer = await sendCallback(
    failing.request.callbackUrl,
    failing.request.payload.access_token,
    taskResultDocument('failed', 'swept'),
  );
  expect(answer.status).toBe(200);
  failedByTaskRunId = failing.runId;
}
afterAll(async () => {
  await taskServer?.close();
});

/** A plan run of a new Workspace `workspace`, claimed and ended `Succeeded` by the controller. */
/** A succeeded plan of `workspace`, whose applies the Project's policy gates with two approvers, approved by the admin. */
async function approvedPlan(workspace: string): Promise<string> {
  const url = platform().gateway.url;
  const { admin } = platform().tokens;
  const plan = await succeededPlan(workspace);
  await send(
    url,
    admin,
    'PATCH',
    `${API}/projects/${TEAM_PROJECT}`,
    { spec: { approvalPolicy: { applies: [{ workspace, approvals: { count: 2 } }] } } },
    'application/merge-patch+json',
  ).then(expectStatus(200));
  await send(url, admin, 'POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${plan}/apply`, {}).then(
    expectStatus(202),
  );
  return plan;
}

async function succeededPlan(workspace: string): Promise<string> {
  const url = platform().gateway.url;
  const { admin, controller } = platform().tokens;
  await send(
    url,
    admin,
    'POST',
    `${API}/namespaces/${TEAM_PROJECT}/workspaces`,
    validObject('Workspace', workspace),
  ).then(expectStatus(201));
  const plan = await send(url, admin, 'POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/${workspace}/runs`, {
    type: 'plan',
  }).then(expectStatus(201));
  const claimed = await send(url, controller, 'POST', '/internal/runs/claim', {
    project: TEAM_PROJECT,
    workspace,
  }).then(expectStatus(200));
  await send(url, controller, 'POST', `/internal/runs/${plan.id}/phase`, {
    leaseId: claimed.lease.id,
    phase: 'Succeeded',
  }).then(expectStatus(200));
  return plan.id as string;
}

describe('Issue 20, item 3: every string field of every body and query schema with a NUL, every integer field out of the int4 range: 400 naming the field, nothing stored', () => {
  it('the sweep reaches the fields the issue names: a run message, a log line, a /phase message, a claimed project, firstSeq', () => {
    const swept = new Set(
      sweptCases().map(({ route, where, field }) => `${route.operationId} ${where} ${fieldName(field.path)}`),
    );
    for (const known of [
      'startRun body message',
      'appendRunLogs body lines[0]',
      'setRunPhase body message',
      'claimRun body project',
      'appendRunLogs body firstSeq',
      'listWorkspaces query labelSelector',
      'createProject body metadata.name',
      'replaceVariableSet body metadata.labels.swept',
      'createProjectToken body role.name',
    ])
      expect(swept, known).toContain(known);
  });

  it('each hostile value, planted in an otherwise valid request as the route expects, is 400 and stores nothing', async () => {
    for (const hostile of sweptCases()) {
      const { route, where, field, value } = hostile;
      const name = fieldName(field.path);
      await expectRefused(
        `${route.method} ${route.path} ${where} ${name}=${JSON.stringify(value)}`,
        async () => sendOn(route, await hostileRequest(hostile)),
        `"${name}"`,
      );
    }
  }, 120_000);

  it('every path parameter of every route with a NUL is 400 and stores nothing', async () => {
    const routes = ROUTES.filter((route) => route.pathParameters && Object.keys(route.pathParameters).length > 0);
    expect(routes.length).toBeGreaterThan(10);
    for (const route of routes) {
      for (const parameter of Object.keys(route.pathParameters!)) {
        const path = pathOf(route, { [parameter]: 'swept%00value' });
        const who: Who =
          route.auth === 'task-result-token' ? 'task' : route.target === 'internal' ? 'controller' : 'admin';
        await expectRefused(
          `${route.method} ${path}`,
          () => sendOn(route, { who }, path),
          `${parameter} "swept\\u0000value"`,
        );
      }
    }
  }, 60_000);

  it('the valid requests the values were planted in are accepted, so each 400 came from the planted value', async () => {
    const swept = [...new Set(sweptCases().map(({ route }) => route))];
    // The run's lease ends with its phase: ending it comes last.
    const ordered = [
      ...swept.filter((route) => route.operationId !== 'setRunPhase'),
      ...swept.filter((route) => route.operationId === 'setRunPhase'),
    ];
    for (const route of ordered) {
      const other = OTHER_SHAPES[route.operationId];
      for (const request of [await validRequest(route), ...(other ? [other.request] : [])]) {
        const response = await sendOn(route, request);
        expect(response.status, `${route.operationId}: ${await response.text()}`).toBeLessThan(300);
      }
    }
  }, 60_000);
});
