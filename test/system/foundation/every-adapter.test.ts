// One HTTP suite through every adapter (issue 15): the same requests, for every one of the five
// functions (the run-log stream and the workspace controller's internal routes included), go
// through the container entry (`node knative/server.ts`, one process per FUNCTION_TARGET), the
// functions-framework entry module (knative/functions-framework.ts) and the Lambda entry module
// (knative/aws-lambda.ts), all over one real PostgreSQL and one Kubernetes emulator. Each answer
// is compared with the expected answer, so three adapters wrong the same way still fail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { decodeJwt } from 'jose';
import type { HttpApiEventV2, HttpApiResultV2 } from '../../../knative/adapters/lambda-adapter.ts';
import { installPlatformCrds } from '../../../shared/domain/resources/platform-crds.ts';
import { FUNCTION_NAMES, type FunctionName } from '../../../shared/contract/routes/route-table.ts';
import { listen } from '../../../knative/node-http/limited-http-server.ts';
import { ADMIN_PASSWORD, adminEnv } from '../../support/admin-fixtures.ts';
import { spawnFunctionProcess, type FunctionProcess } from '../../support/function-servers.ts';
import { rawRequest } from '../../support/raw-http.ts';
import { TEST_NAMESPACE, startIdentityCluster, type IdentityCluster } from '../../support/identity-cluster.ts';
import { startTestDatabase, type TestDatabase } from '../../support/test-database.ts';
import { API, GROUP, projectObject, workspaceObject } from '../../support/platform-fixture.ts';

const BASE_URL = 'https://api.example.test';
const PROJECT = 'adapters';
const WORKSPACE = 'network';
const CONTROLLER = 'workspace-controller';
const MAX_BODY_BYTES = 4096;
const CONSOLE_ORIGIN = 'https://console.example.com';
const LAMBDA_EXPORTS: Record<FunctionName, string> = {
  login: 'login',
  'public-config': 'publicConfig',
  resources: 'resources',
  internal: 'internal',
  'run-logs': 'runLogs',
};

interface Request {
  fn: FunctionName;
  method: string;
  /** Path and query. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Answer {
  status: number;
  contentType: string;
  /** Parsed JSON, or the text of any other body. */
  body: unknown;
  headers: Record<string, string | undefined>;
}

type Transport = (request: Request) => Promise<Answer>;

function answerOf(status: number, headers: Record<string, string | undefined>, text: string): Answer {
  const contentType = headers['content-type'] ?? '';
  return { status, contentType, body: contentType.startsWith('application/json') ? JSON.parse(text) : text, headers };
}

const overHttp =
  (urlOf: (fn: FunctionName) => string): Transport =>
  async (request) => {
    const response = await fetch(`${urlOf(request.fn)}${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
    });
    return answerOf(response.status, Object.fromEntries(response.headers), await response.text());
  };

let database: TestDatabase;
let cluster: IdentityCluster;
let folder: string;
const containers = new Map<FunctionName, FunctionProcess>();
const frameworkUrls = new Map<FunctionName, string>();
const frameworkServers: Server[] = [];
const transports: Array<[string, Transport]> = [];
const restoredEnv: Record<string, string | undefined> = {};
let adminToken = '';
let controllerToken = '';
let runId = '';
let pendingRunId = '';

/** The environment every adapter gets: production mode, the admin account, the database and the cluster. */
function environment(kubeConfigFile: string): Record<string, string> {
  return adminEnv({
    API_BASE_URL: BASE_URL,
    DATABASE_URL: database.connectionString,
    KUBECONFIG: kubeConfigFile,
    SERVICE_ACCOUNT_ISSUERS: cluster.emulator.serviceAccountIssuer,
    MAX_REQUEST_BODY_BYTES: String(MAX_BODY_BYTES),
    CORS_ALLOWED_ORIGINS: CONSOLE_ORIGIN,
    LOG_LEVEL: 'error',
  });
}

/** The entry modules read process.env when imported; set it for them and put it back afterwards. */
async function importWithEnvironment<T>(env: Record<string, string>, load: () => Promise<T>): Promise<T> {
  for (const [name, value] of Object.entries(env)) {
    if (!(name in restoredEnv)) restoredEnv[name] = process.env[name];
    process.env[name] = value;
  }
  return load();
}

beforeAll(async () => {
  [database, cluster] = await Promise.all([startTestDatabase(), startIdentityCluster({ tls: true })]);
  await installPlatformCrds(cluster.emulator.kubeConfig(), GROUP);
  await cluster.createServiceAccount(CONTROLLER);
  await cluster.allowPaths(CONTROLLER, ['/internal', '/internal/*'], ['get', 'post']);
  controllerToken = await cluster.mintToken(CONTROLLER);
  folder = await mkdtemp(join(tmpdir(), 'every-adapter-'));
  const kubeConfigFile = join(folder, 'kubeconfig');
  await writeFile(kubeConfigFile, cluster.emulator.kubeConfigYaml(), { mode: 0o600 });
  const env = environment(kubeConfigFile);

  const started = await Promise.all(FUNCTION_NAMES.map((fn) => spawnFunctionProcess({ ...env, FUNCTION_TARGET: fn })));
  for (const [index, fn] of FUNCTION_NAMES.entries()) containers.set(fn, started[index]!);
  transports.push(['container entry (knative/server.ts)', overHttp((fn) => containers.get(fn)!.url)]);

  // The entry registers only its --target (FUNCTION_TARGET): one evaluation of the module per function.
  for (const fn of FUNCTION_NAMES) {
    await importWithEnvironment(
      { ...env, FUNCTION_TARGET: fn },
      () =>
        import(
          /* @vite-ignore */ new URL(`../../../knative/functions-framework.ts?target=${fn}`, import.meta.url).href
        ),
    );
    const server = getTestServer(fn);
    frameworkServers.push(server);
    frameworkUrls.set(fn, `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`);
  }
  transports.push(['functions-framework (knative/functions-framework.ts)', overHttp((fn) => frameworkUrls.get(fn)!)]);

  const lambda = (await importWithEnvironment(
    env,
    () => import('../../../knative/aws-lambda.ts'),
  )) as unknown as Record<string, (event: HttpApiEventV2) => Promise<HttpApiResultV2>>;
  transports.push([
    'AWS Lambda (knative/aws-lambda.ts)',
    async (request) => {
      const [rawPath, rawQueryString = ''] = request.path.split('?');
      const result = await lambda[LAMBDA_EXPORTS[request.fn]]!({
        version: '2.0',
        rawPath: rawPath!,
        rawQueryString,
        headers: request.headers ?? {},
        ...(request.body !== undefined
          ? { body: Buffer.from(request.body).toString('base64'), isBase64Encoded: true }
          : {}),
        requestContext: { http: { method: request.method, sourceIp: '127.0.0.1' } },
      });
      return answerOf(result.statusCode, result.headers, result.body);
    },
  ]);

  // The scene every case reads: a Project with a Workspace, one finished run with two log lines, one pending run.
  const container = transports[0]![1];
  const login = await container({
    fn: 'login',
    method: 'POST',
    path: '/api/v1alpha1/auth/login',
    headers: { authorization: `Bearer ${ADMIN_PASSWORD}` },
  });
  adminToken = (login.body as { idToken: string }).idToken;
  const asAdmin = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
  const asController = { authorization: `Bearer ${controllerToken}`, 'content-type': 'application/json' };
  const seed = async (request: Request, status: number) => {
    const answer = await container(request);
    if (answer.status !== status)
      throw new Error(`seeding ${request.method} ${request.path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body as Record<string, unknown>;
  };
  await seed(
    {
      fn: 'resources',
      method: 'POST',
      path: `${API}/projects`,
      headers: asAdmin,
      body: JSON.stringify(projectObject(PROJECT)),
    },
    201,
  );
  await seed(
    {
      fn: 'resources',
      method: 'POST',
      path: `${API}/namespaces/${PROJECT}/workspaces`,
      headers: asAdmin,
      body: JSON.stringify(workspaceObject(WORKSPACE)),
    },
    201,
  );
  runId = (
    await seed(
      {
        fn: 'resources',
        method: 'POST',
        path: `/api/v1alpha1/projects/${PROJECT}/workspaces/${WORKSPACE}/runs`,
        headers: asAdmin,
        body: JSON.stringify({ type: 'plan', message: 'through every adapter' }),
      },
      201,
    )
  ).id as string;
  const claimed = await seed(
    {
      fn: 'internal',
      method: 'POST',
      path: '/internal/runs/claim',
      headers: asController,
      body: JSON.stringify({ project: PROJECT, workspace: WORKSPACE, leaseSeconds: 600 }),
    },
    200,
  );
  const leaseId = (claimed.lease as { id: string }).id;
  await seed(
    {
      fn: 'internal',
      method: 'POST',
      path: `/internal/runs/${runId}/logs`,
      headers: asController,
      body: JSON.stringify({ leaseId, firstSeq: 1, lines: ['Initializing...', 'Plan: 1 to add'] }),
    },
    200,
  );
  await seed(
    {
      fn: 'internal',
      method: 'POST',
      path: `/internal/runs/${runId}/phase`,
      headers: asController,
      body: JSON.stringify({ leaseId, phase: 'Succeeded', message: 'done' }),
    },
    200,
  );
  pendingRunId = (
    await seed(
      {
        fn: 'resources',
        method: 'POST',
        path: `/api/v1alpha1/projects/${PROJECT}/workspaces/${WORKSPACE}/runs`,
        headers: asAdmin,
        body: JSON.stringify({ type: 'apply' }),
      },
      201,
    )
  ).id as string;
}, 120_000);

afterAll(async () => {
  await Promise.all(frameworkServers.map((server) => new Promise((resolve) => server.close(resolve))));
  await Promise.all([...containers.values()].map((child) => child.stop()));
  for (const [name, value] of Object.entries(restoredEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await Promise.all([database?.destroy(), cluster?.close()]);
  if (folder) await rm(folder, { recursive: true, force: true });
});

interface Case {
  name: string;
  request: () => Request;
  expect: (answer: Answer) => void;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const json = (status: number, body: unknown) => (answer: Answer) => {
  expect(answer.status).toBe(status);
  expect(answer.contentType).toMatch(/^application\/json/);
  expect(answer.body).toEqual(body);
};
const jsonMatching = (status: number, body: Record<string, unknown>) => (answer: Answer) => {
  expect(answer.status).toBe(status);
  expect(answer.contentType).toMatch(/^application\/json/);
  expect(answer.body).toMatchObject(body);
};
/** The check, and an `Audit-Id` on the answer as on every answer (docs/audit.md). */
const withAuditId = (check: (answer: Answer) => void) => (answer: Answer) => {
  check(answer);
  expect(answer.headers['audit-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
};
const streamPath = () => `/api/v1alpha1/run-logs/${PROJECT}/${runId}`;
const expectedRun = () => ({
  id: runId,
  project: PROJECT,
  workspace: WORKSPACE,
  type: 'plan',
  phase: 'Succeeded',
  principal: 'admin',
  principalType: 'admin',
  message: 'through every adapter',
  statusMessage: 'done',
  attempts: 1,
  controller: `system:serviceaccount:${TEST_NAMESPACE}:${CONTROLLER}`,
  cancelRequestedAt: null,
  cancelRequestedBy: null,
  planRun: null,
  planHasChanges: null,
  createdAt: expect.any(String),
  startedAt: expect.any(String),
  finishedAt: expect.any(String),
  logRemovedAt: null,
});
const expectedStream = () =>
  `retry: 3000\n\nid: 1\ndata: Initializing...\n\nid: 2\ndata: Plan: 1 to add\n\nevent: end\ndata: {"phase":"Succeeded","message":"through every adapter","statusMessage":"done"}\n\n`;
const eventStream = (answer: Answer) => {
  expect(answer.status).toBe(200);
  expect(answer.contentType).toBe('text/event-stream; charset=utf-8');
  expect(answer.body).toBe(expectedStream());
};

const corsHeaders = (answer: Answer) =>
  Object.fromEntries(
    Object.entries(answer.headers).filter(([name]) => name.startsWith('access-control-') || name === 'vary'),
  );
const preflight = (fn: FunctionName, path: string, origin = CONSOLE_ORIGIN): Request => ({
  fn,
  method: 'OPTIONS',
  path,
  headers: {
    origin,
    'access-control-request-method': 'GET',
    'access-control-request-headers': 'authorization, last-event-id',
  },
});
const preflightAnswer = (methods: string) => (answer: Answer) => {
  expect(answer.status).toBe(204);
  expect(corsHeaders(answer)).toEqual({
    'access-control-allow-origin': CONSOLE_ORIGIN,
    vary: 'Origin',
    'access-control-allow-methods': methods,
    'access-control-allow-headers': 'Authorization, Content-Type, Last-Event-ID',
    'access-control-max-age': '600',
  });
};
const fromConsole = (answer: Answer) =>
  expect([answer.headers['access-control-allow-origin'], answer.headers.vary]).toEqual([CONSOLE_ORIGIN, 'Origin']);

const CASES: Case[] = [
  ...FUNCTION_NAMES.map(
    (fn): Case => ({
      name: `${fn}: liveness probe`,
      request: () => ({ fn, method: 'GET', path: '/healthz' }),
      expect: json(200, { status: 'ok' }),
    }),
  ),
  ...FUNCTION_NAMES.map(
    (fn): Case => ({
      name: `${fn}: readiness probe`,
      request: () => ({ fn, method: 'GET', path: '/readyz' }),
      expect: json(200, { status: 'ready' }),
    }),
  ),
  {
    name: 'login: the right password → an HS256 admin JWT for API_BASE_URL',
    request: () => ({ fn: 'login', method: 'POST', path: '/api/v1alpha1/auth/login', headers: bearer(ADMIN_PASSWORD) }),
    expect: (answer) => {
      expect(answer.status).toBe(200);
      const { idToken } = answer.body as { idToken: string };
      expect(decodeJwt(idToken)).toEqual({
        iss: BASE_URL,
        sub: 'admin',
        iat: expect.any(Number),
        exp: expect.any(Number),
      });
    },
  },
  {
    name: 'login: a wrong password → 403 InvalidPassword',
    request: () => ({ fn: 'login', method: 'POST', path: '/api/v1alpha1/auth/login', headers: bearer('wrong') }),
    expect: jsonMatching(403, { reason: 'InvalidPassword' }),
  },
  {
    name: 'login: no Authorization header → 400',
    request: () => ({ fn: 'login', method: 'POST', path: '/api/v1alpha1/auth/login' }),
    expect: (answer) => expect([answer.status, answer.contentType.startsWith('application/json')]).toEqual([400, true]),
  },
  {
    name: 'login: a body over MAX_REQUEST_BODY_BYTES → 413 PayloadTooLarge',
    request: () => ({
      fn: 'login',
      method: 'POST',
      path: '/api/v1alpha1/auth/login',
      headers: { ...bearer(ADMIN_PASSWORD), 'content-type': 'application/octet-stream' },
      body: 'x'.repeat(MAX_BODY_BYTES + 1),
    }),
    expect: withAuditId(jsonMatching(413, { reason: 'PayloadTooLarge' })),
  },
  {
    name: 'resources: an authenticated write with a body over MAX_REQUEST_BODY_BYTES → 413 with its Audit-Id (issue 38, item 7)',
    request: () => ({
      fn: 'resources',
      method: 'POST',
      path: `${API}/namespaces/${PROJECT}/workspaces`,
      headers: { ...bearer(adminToken), 'content-type': 'application/json' },
      body: JSON.stringify({ ...workspaceObject('too-large'), padding: 'x'.repeat(MAX_BODY_BYTES) }),
    }),
    expect: withAuditId(jsonMatching(413, { reason: 'PayloadTooLarge' })),
  },
  {
    name: 'resources: a body over the limit without a token → 401 first, as every refusal of an unknown caller (issue 38, item 7)',
    request: () => ({
      fn: 'resources',
      method: 'POST',
      path: `${API}/namespaces/${PROJECT}/workspaces`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ padding: 'x'.repeat(MAX_BODY_BYTES) }),
    }),
    expect: withAuditId(jsonMatching(401, { reason: 'MissingToken' })),
  },
  {
    name: 'resources: a request target over 8 KiB → 414 UriTooLong with an Audit-Id (issue 38, item 7)',
    request: () => ({ fn: 'resources', method: 'GET', path: `${API}/projects?labelSelector=${'a'.repeat(10_000)}` }),
    expect: withAuditId(jsonMatching(414, { reason: 'UriTooLong' })),
  },
  {
    name: 'public-config: what a client needs before it logs in',
    request: () => ({ fn: 'public-config', method: 'GET', path: '/api/v1alpha1/system/public-config' }),
    expect: json(200, { adminAccountEnabled: true }),
  },
  {
    name: 'public-config: the OpenAPI document',
    request: () => ({ fn: 'public-config', method: 'GET', path: '/openapi.json' }),
    expect: (answer) => {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        openapi: expect.stringMatching(/^3\.1/),
        paths: expect.objectContaining({ '/api/v1alpha1/auth/login': expect.any(Object) }),
      });
    },
  },
  {
    name: 'resources: whoami with the admin token',
    request: () => ({ fn: 'resources', method: 'GET', path: '/api/v1alpha1/auth/whoami', headers: bearer(adminToken) }),
    expect: json(200, { type: 'admin', name: 'admin' }),
  },
  {
    name: 'resources: read the Workspace',
    request: () => ({
      fn: 'resources',
      method: 'GET',
      path: `${API}/namespaces/${PROJECT}/workspaces/${WORKSPACE}`,
      headers: bearer(adminToken),
    }),
    expect: jsonMatching(200, {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'Workspace',
      metadata: { name: WORKSPACE, namespace: PROJECT },
      spec: (workspaceObject(WORKSPACE) as { spec: object }).spec,
    }),
  },
  {
    name: "resources: an unknown Workspace → the cluster's 404 Status",
    request: () => ({
      fn: 'resources',
      method: 'GET',
      path: `${API}/namespaces/${PROJECT}/workspaces/nowhere`,
      headers: bearer(adminToken),
    }),
    expect: jsonMatching(404, { kind: 'Status', reason: 'NotFound', code: 404 }),
  },
  {
    name: 'resources: no token → 401 MissingToken',
    request: () => ({ fn: 'resources', method: 'GET', path: `${API}/projects` }),
    expect: json(401, { error: 'a bearer token is required', reason: 'MissingToken' }),
  },
  {
    name: 'resources: access_token outside the stream → 401 MissingToken',
    request: () => ({ fn: 'resources', method: 'GET', path: `${API}/projects?access_token=${adminToken}` }),
    expect: json(401, { error: 'a bearer token is required', reason: 'MissingToken' }),
  },
  {
    name: 'resources: a method the route lacks → 405',
    request: () => ({
      fn: 'resources',
      method: 'POST',
      path: '/api/v1alpha1/auth/whoami',
      headers: bearer(adminToken),
    }),
    expect: jsonMatching(405, { reason: 'MethodNotAllowed' }),
  },
  {
    name: 'resources: read the run',
    request: () => ({
      fn: 'resources',
      method: 'GET',
      path: `/api/v1alpha1/projects/${PROJECT}/runs/${runId}`,
      headers: bearer(adminToken),
    }),
    // A user's answer says whether the succeeded plan may still be applied (issue 44, item 15); the
    // controller's does not (below). What it says is proven in plan-approval-http.test.ts.
    expect: (answer) =>
      json(200, { ...expectedRun(), planApproval: expect.objectContaining({ applyableUntil: expect.any(String) }) })(
        answer,
      ),
  },
  {
    name: 'internal: the controller lists the Pending runs (its work queue)',
    request: () => ({
      fn: 'internal',
      method: 'GET',
      path: '/internal/runs?phase=Pending',
      headers: bearer(controllerToken),
    }),
    expect: (answer) =>
      json(200, {
        items: [
          {
            ...expectedRun(),
            id: pendingRunId,
            type: 'apply',
            phase: 'Pending',
            message: '',
            statusMessage: '',
            attempts: 0,
            controller: null,
            startedAt: null,
            finishedAt: null,
          },
        ],
      })(answer),
  },
  {
    name: 'internal: a finished phase is no work queue → 400 InvalidPhase',
    request: () => ({
      fn: 'internal',
      method: 'GET',
      path: '/internal/runs?phase=Succeeded',
      headers: bearer(controllerToken),
    }),
    expect: jsonMatching(400, { reason: 'InvalidPhase' }),
  },
  {
    name: 'internal: an unknown internal route, once authorized → 404',
    request: () => ({
      fn: 'internal',
      method: 'GET',
      path: '/internal/no-such-route',
      headers: bearer(controllerToken),
    }),
    expect: jsonMatching(404, { reason: 'NotFound' }),
  },
  {
    name: 'internal: access_token → 401 MissingToken',
    request: () => ({ fn: 'internal', method: 'GET', path: `/internal/runs?access_token=${controllerToken}` }),
    expect: json(401, { error: 'a bearer token is required', reason: 'MissingToken' }),
  },
  {
    name: 'internal: a phase change under a lease not held → 409 LeaseNotHeld',
    request: () => ({
      fn: 'internal',
      method: 'POST',
      path: `/internal/runs/${runId}/phase`,
      headers: { ...bearer(controllerToken), 'content-type': 'application/json' },
      body: JSON.stringify({ leaseId: '0190f4c8-0000-7000-8000-00000000beef', phase: 'Succeeded' }),
    }),
    expect: jsonMatching(409, { reason: 'LeaseNotHeld' }),
  },
  {
    name: 'run-logs: the stream with the token in the header',
    request: () => ({ fn: 'run-logs', method: 'GET', path: streamPath(), headers: bearer(adminToken) }),
    expect: eventStream,
  },
  {
    name: 'run-logs: the stream with the token in access_token',
    request: () => ({ fn: 'run-logs', method: 'GET', path: `${streamPath()}?access_token=${adminToken}` }),
    expect: eventStream,
  },
  {
    name: 'run-logs: the stream from Last-Event-ID on',
    request: () => ({
      fn: 'run-logs',
      method: 'GET',
      path: streamPath(),
      headers: { ...bearer(adminToken), 'last-event-id': '1' },
    }),
    expect: (answer) =>
      expect([answer.status, answer.body]).toEqual([
        200,
        expectedStream().replace('id: 1\ndata: Initializing...\n\n', ''),
      ]),
  },
  {
    name: 'run-logs: an unknown run → 404 RunNotFound',
    request: () => ({
      fn: 'run-logs',
      method: 'GET',
      path: `/api/v1alpha1/run-logs/${PROJECT}/0190a0a0-0000-7000-8000-000000000000`,
      headers: bearer(adminToken),
    }),
    expect: jsonMatching(404, { reason: 'RunNotFound' }),
  },
  {
    name: "CORS: a preflight from an allowed origin → 204 with the route's methods, before authentication",
    request: () => preflight('resources', `${API}/namespaces/${PROJECT}/workspaces/${WORKSPACE}`),
    expect: preflightAnswer('GET, PUT, PATCH, DELETE'),
  },
  {
    name: 'CORS: a preflight of the run-log stream → 204',
    request: () => preflight('run-logs', streamPath()),
    expect: preflightAnswer('GET'),
  },
  {
    name: 'CORS: a preflight from another origin → no CORS headers (the OPTIONS request fails closed: 401)',
    request: () => preflight('resources', `${API}/projects`, 'https://evil.example.com'),
    expect: (answer) => expect([answer.status, corsHeaders(answer)]).toEqual([401, {}]),
  },
  {
    name: 'CORS: an answer to an allowed origin names it and exposes the headers clients read',
    request: () => ({
      fn: 'resources',
      method: 'GET',
      path: '/api/v1alpha1/auth/whoami',
      headers: { ...bearer(adminToken), origin: CONSOLE_ORIGIN },
    }),
    expect: (answer) => {
      json(200, { type: 'admin', name: 'admin' })(answer);
      fromConsole(answer);
      expect(answer.headers['access-control-expose-headers']).toBe(
        'Location, Retry-After, WWW-Authenticate, Allow, Warning',
      );
    },
  },
  {
    name: 'CORS: an error to an allowed origin names it too (the browser can read the 401)',
    request: () => ({ fn: 'resources', method: 'GET', path: `${API}/projects`, headers: { origin: CONSOLE_ORIGIN } }),
    expect: (answer) => {
      for (const check of [json(401, { error: 'a bearer token is required', reason: 'MissingToken' }), fromConsole])
        check(answer);
    },
  },
  {
    name: 'CORS: the stream with access_token from an allowed origin (EventSource, no preflight) names it',
    request: () => ({
      fn: 'run-logs',
      method: 'GET',
      path: `${streamPath()}?access_token=${adminToken}`,
      headers: { origin: CONSOLE_ORIGIN },
    }),
    expect: (answer) => {
      for (const check of [eventStream, fromConsole]) check(answer);
    },
  },
  {
    name: 'CORS: an answer to another origin carries no CORS header',
    request: () => ({
      fn: 'resources',
      method: 'GET',
      path: '/api/v1alpha1/auth/whoami',
      headers: { ...bearer(adminToken), origin: 'https://evil.example.com' },
    }),
    expect: (answer) => expect([answer.status, corsHeaders(answer)]).toEqual([200, {}]),
  },
  {
    name: 'run-logs: an invalid access_token → 401 InvalidToken',
    request: () => ({ fn: 'run-logs', method: 'GET', path: `${streamPath()}?access_token=garbage` }),
    expect: jsonMatching(401, { reason: 'InvalidToken' }),
  },
];

describe("Requests refused before they are read, by each runtime's own server: JSON, with an Audit-Id (issue 38, item 7)", () => {
  const servers = () => [
    ['container entry (knative/server.ts)', containers.get('resources')!.url],
    ['functions-framework (its own server)', frameworkUrls.get('resources')!],
  ];

  it('a 20 KB request target is 414 UriTooLong, not 431', async () => {
    for (const [name, url] of servers()) {
      const answer = await rawRequest(url!, 'GET', `${API}/projects?labelSelector=${'a'.repeat(20_000)}`);
      expect([answer.status, JSON.parse(answer.text).reason], name).toEqual([414, 'UriTooLong']);
      expect(answer.headers['audit-id'], name).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('20 KB of headers is 431 RequestHeaderFieldsTooLarge (MAX_REQUEST_HEADER_BYTES, the framework too)', async () => {
    for (const [name, url] of servers()) {
      const answer = await rawRequest(url!, 'GET', `${API}/projects`, { 'x-padding': 'b'.repeat(20_000) });
      expect([answer.status, JSON.parse(answer.text).reason], name).toEqual([431, 'RequestHeaderFieldsTooLarge']);
      expect(answer.headers['audit-id'], name).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

describe('One core handler per function, thin adapters: every adapter gives the expected answer to the same request', () => {
  it('runs the suite through three adapters, all five functions', () => {
    expect(transports.map(([name]) => name)).toHaveLength(3);
    expect(new Set(CASES.map((testCase) => testCase.request().fn))).toEqual(new Set(FUNCTION_NAMES));
  });

  describe.each([
    'container entry (knative/server.ts)',
    'functions-framework (knative/functions-framework.ts)',
    'AWS Lambda (knative/aws-lambda.ts)',
  ])('%s', (transportName) => {
    it.each(CASES.map((testCase) => [testCase.name, testCase] as const))('%s', async (_name, testCase) => {
      const send = transports.find(([name]) => name === transportName)![1];
      testCase.expect(await send(testCase.request()));
    });

    it('adds the security headers to every answer', async () => {
      const send = transports.find(([name]) => name === transportName)![1];
      const answer = await send({ fn: 'resources', method: 'GET', path: `${API}/projects` });
      expect([
        answer.headers['x-content-type-options'],
        answer.headers['referrer-policy'],
        answer.headers['www-authenticate']?.startsWith('Bearer '),
      ]).toEqual(['nosniff', 'no-referrer', true]);
    });
  });
});
