// The route table's access rules on their own, without a server (issue 15): every route's method,
// path, owner and access mode, exactly; how a bearer token is read; and which route a request
// matches. The HTTP side of the same rules is route-access-rules.test.ts.
import { describe, expect, it } from 'vitest';
import { readBearerToken } from '../../../shared/auth/bearer-token.ts';
import type { ApiRequest } from '../../../shared/base/http/api-request.ts';
import type { ApiError } from '../../../shared/base/http/api-error.ts';
import { RouteMatcher } from '../../../shared/contract/routes/route-matcher.ts';
import { routeTable } from '../../../shared/contract/routes/route-table.ts';

const ROUTES = routeTable('platform.dev');
// Run ids in paths are UUIDs (shared/contract/routes/path-parameters.ts).
const RUN_ID = '0190f4c8-0000-7000-8000-000000000001';

// method, path, who serves it, how the token may come (none: open route), and the handler it dispatches to.
const EXPECTED_ROUTES = `
  GET /healthz every-function none getHealth
  GET /readyz every-function none getReadiness
  GET /metrics every-function bearer getMetrics
  POST /api/v1alpha1/auth/login login none login
  GET /api/v1alpha1/auth/whoami resources bearer whoAmI
  GET /api/v1alpha1/system/public-config public-config none getPublicConfig
  GET /openapi.json public-config none getOpenApiDocument
  GET /docs public-config none getApiReference
  GET /version resources bearer getKubernetesVersion
  GET /api resources bearer getCoreApiVersions
  GET /api/v1 resources bearer getCoreApiResources
  GET /api/v1/namespaces/{namespace} resources bearer getProjectNamespace
  GET /apis resources bearer getApiGroups
  GET /apis/platform.dev resources bearer getPlatformApiGroup
  GET /apis/platform.dev/v1alpha1 resources bearer getPlatformApiResources
  GET /openapi/v2 resources bearer getOpenApiV2
  GET /openapi/v3 resources bearer getOpenApiV3
  GET /openapi/v3/apis/platform.dev/v1alpha1 resources bearer getOpenApiV3PlatformGroup
  POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews resources bearer createSelfSubjectAccessReview
  POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews resources bearer createSelfSubjectRulesReview
  GET /apis/platform.dev/v1alpha1/projects resources bearer listProjects
  POST /apis/platform.dev/v1alpha1/projects resources bearer createProject
  GET /apis/platform.dev/v1alpha1/projects/{name} resources bearer getProject
  PUT /apis/platform.dev/v1alpha1/projects/{name} resources bearer replaceProject
  PATCH /apis/platform.dev/v1alpha1/projects/{name} resources bearer patchProject
  DELETE /apis/platform.dev/v1alpha1/projects/{name} resources bearer deleteProject
  GET /apis/platform.dev/v1alpha1/projects/{name}/status resources bearer getProjectStatus
  PUT /apis/platform.dev/v1alpha1/projects/{name}/status resources bearer replaceProjectStatus
  PATCH /apis/platform.dev/v1alpha1/projects/{name}/status resources bearer patchProjectStatus
  GET /apis/platform.dev/v1alpha1/namespaces/{namespace}/workspaces resources bearer listWorkspaces
  GET /apis/platform.dev/v1alpha1/workspaces resources bearer listWorkspacesInAllNamespaces
  POST /apis/platform.dev/v1alpha1/namespaces/{namespace}/workspaces resources bearer createWorkspace
  GET /apis/platform.dev/v1alpha1/namespaces/{namespace}/workspaces/{name} resources bearer getWorkspace
  PUT /apis/platform.dev/v1alpha1/namespaces/{namespace}/workspaces/{name} resources bearer replaceWorkspace
  PATCH /apis/platform.dev/v1alpha1/namespaces/{namespace}/workspaces/{name} resources bearer patchWorkspace
  DELETE /apis/platform.dev/v1alpha1/namespaces/{namespace}/workspaces/{name} resources bearer deleteWorkspace
  GET /apis/platform.dev/v1alpha1/namespaces/{namespace}/workspaces/{name}/status resources bearer getWorkspaceStatus
  PUT /apis/platform.dev/v1alpha1/namespaces/{namespace}/workspaces/{name}/status resources bearer replaceWorkspaceStatus
  PATCH /apis/platform.dev/v1alpha1/namespaces/{namespace}/workspaces/{name}/status resources bearer patchWorkspaceStatus
  GET /apis/platform.dev/v1alpha1/namespaces/{namespace}/rollouts resources bearer listRollouts
  GET /apis/platform.dev/v1alpha1/rollouts resources bearer listRolloutsInAllNamespaces
  POST /apis/platform.dev/v1alpha1/namespaces/{namespace}/rollouts resources bearer createRollout
  GET /apis/platform.dev/v1alpha1/namespaces/{namespace}/rollouts/{name} resources bearer getRollout
  PUT /apis/platform.dev/v1alpha1/namespaces/{namespace}/rollouts/{name} resources bearer replaceRollout
  PATCH /apis/platform.dev/v1alpha1/namespaces/{namespace}/rollouts/{name} resources bearer patchRollout
  DELETE /apis/platform.dev/v1alpha1/namespaces/{namespace}/rollouts/{name} resources bearer deleteRollout
  GET /apis/platform.dev/v1alpha1/namespaces/{namespace}/rollouts/{name}/status resources bearer getRolloutStatus
  PUT /apis/platform.dev/v1alpha1/namespaces/{namespace}/rollouts/{name}/status resources bearer replaceRolloutStatus
  PATCH /apis/platform.dev/v1alpha1/namespaces/{namespace}/rollouts/{name}/status resources bearer patchRolloutStatus
  GET /apis/platform.dev/v1alpha1/namespaces/{namespace}/variablesets resources bearer listVariableSets
  GET /apis/platform.dev/v1alpha1/variablesets resources bearer listVariableSetsInAllNamespaces
  POST /apis/platform.dev/v1alpha1/namespaces/{namespace}/variablesets resources bearer createVariableSet
  GET /apis/platform.dev/v1alpha1/namespaces/{namespace}/variablesets/{name} resources bearer getVariableSet
  PUT /apis/platform.dev/v1alpha1/namespaces/{namespace}/variablesets/{name} resources bearer replaceVariableSet
  PATCH /apis/platform.dev/v1alpha1/namespaces/{namespace}/variablesets/{name} resources bearer patchVariableSet
  DELETE /apis/platform.dev/v1alpha1/namespaces/{namespace}/variablesets/{name} resources bearer deleteVariableSet
  GET /apis/platform.dev/v1alpha1/namespaces/{namespace}/variablesets/{name}/status resources bearer getVariableSetStatus
  PUT /apis/platform.dev/v1alpha1/namespaces/{namespace}/variablesets/{name}/status resources bearer replaceVariableSetStatus
  PATCH /apis/platform.dev/v1alpha1/namespaces/{namespace}/variablesets/{name}/status resources bearer patchVariableSetStatus
  GET /apis/platform.dev/v1alpha1/namespaces/{namespace}/notifications resources bearer listNotifications
  GET /apis/platform.dev/v1alpha1/notifications resources bearer listNotificationsInAllNamespaces
  POST /apis/platform.dev/v1alpha1/namespaces/{namespace}/notifications resources bearer createNotification
  GET /apis/platform.dev/v1alpha1/namespaces/{namespace}/notifications/{name} resources bearer getNotification
  PUT /apis/platform.dev/v1alpha1/namespaces/{namespace}/notifications/{name} resources bearer replaceNotification
  PATCH /apis/platform.dev/v1alpha1/namespaces/{namespace}/notifications/{name} resources bearer patchNotification
  DELETE /apis/platform.dev/v1alpha1/namespaces/{namespace}/notifications/{name} resources bearer deleteNotification
  GET /apis/platform.dev/v1alpha1/namespaces/{namespace}/notifications/{name}/status resources bearer getNotificationStatus
  PUT /apis/platform.dev/v1alpha1/namespaces/{namespace}/notifications/{name}/status resources bearer replaceNotificationStatus
  PATCH /apis/platform.dev/v1alpha1/namespaces/{namespace}/notifications/{name}/status resources bearer patchNotificationStatus
  GET /apis/platform.dev/v1alpha1/namespaces/{namespace}/runtasks resources bearer listRunTasks
  GET /apis/platform.dev/v1alpha1/runtasks resources bearer listRunTasksInAllNamespaces
  POST /apis/platform.dev/v1alpha1/namespaces/{namespace}/runtasks resources bearer createRunTask
  GET /apis/platform.dev/v1alpha1/namespaces/{namespace}/runtasks/{name} resources bearer getRunTask
  PUT /apis/platform.dev/v1alpha1/namespaces/{namespace}/runtasks/{name} resources bearer replaceRunTask
  PATCH /apis/platform.dev/v1alpha1/namespaces/{namespace}/runtasks/{name} resources bearer patchRunTask
  DELETE /apis/platform.dev/v1alpha1/namespaces/{namespace}/runtasks/{name} resources bearer deleteRunTask
  GET /apis/platform.dev/v1alpha1/namespaces/{namespace}/runtasks/{name}/status resources bearer getRunTaskStatus
  PUT /apis/platform.dev/v1alpha1/namespaces/{namespace}/runtasks/{name}/status resources bearer replaceRunTaskStatus
  PATCH /apis/platform.dev/v1alpha1/namespaces/{namespace}/runtasks/{name}/status resources bearer patchRunTaskStatus
  POST /api/v1alpha1/projects/{project}/workspaces/{workspace}/runs resources bearer startRun
  GET /api/v1alpha1/projects/{project}/workspaces/{workspace}/runs resources bearer listWorkspaceRuns
  GET /api/v1alpha1/projects/{project}/runs resources bearer listProjectRuns
  GET /api/v1alpha1/projects/{project}/runs/{run} resources bearer getRun
  POST /api/v1alpha1/projects/{project}/runs/{run}/cancel resources bearer cancelRun
  POST /api/v1alpha1/projects/{project}/runs/{run}/apply resources bearer applyPlan
  POST /api/v1alpha1/projects/{project}/runs/{run}/withdraw resources bearer withdrawPlanApproval
  GET /api/v1alpha1/projects/{project}/notifications/{notification}/deliveries resources bearer listNotificationDeliveries
  POST /api/v1alpha1/projects/{project}/notifications/{notification}/deliveries/{delivery}/redeliver resources bearer redeliverNotification
  GET /api/v1alpha1/projects/{project}/runs/{run}/task-results resources bearer listRunTaskResults
  POST /api/v1alpha1/projects/{project}/runs/{run}/override-tasks resources bearer overrideRunTasks
  GET /api/v1alpha1/projects/{project}/runs/{run}/plan-json resources bearer getRunPlanJson
  PATCH /api/v1alpha1/task-results/{taskResult}/callback resources task-result-token reportTaskResult
  GET /api/v1alpha1/task-results/{taskResult}/run-log resources task-result-token readTaskRunLog
  GET /api/v1alpha1/task-results/{taskResult}/plan-json resources task-result-token readTaskPlanJson
  POST /api/v1alpha1/projects/{project}/rollouts/{rollout}/approve resources bearer approveRollout
  POST /api/v1alpha1/projects/{project}/rollouts/{rollout}/withdraw resources bearer withdrawRolloutApproval
  POST /api/v1alpha1/projects/{project}/tokens resources bearer createProjectToken
  GET /api/v1alpha1/projects/{project}/tokens resources bearer listProjectTokens
  DELETE /api/v1alpha1/projects/{project}/tokens/{name} resources bearer revokeProjectToken
  GET /api/v1alpha1/audit/events resources bearer listAuditEvents
  GET /internal/runs internal bearer listRunsInPhase
  POST /internal/runs/claim internal bearer claimRun
  POST /internal/runs/{run}/lease internal bearer renewRunLease
  POST /internal/runs/{run}/phase internal bearer setRunPhase
  POST /internal/runs/{run}/logs internal bearer appendRunLogs
  GET /internal/runs/{run}/variables internal bearer getRunVariables
  POST /internal/runs/{run}/plan-json internal bearer putRunPlanJson
  POST /internal/outbound/sweep internal bearer sweepOutbound
  * /internal/* internal bearer internal
  GET /api/v1alpha1/run-logs/{project}/{run} run-logs bearer-or-query streamRunLogs
  * /bridge/* bridge none identityBridge
`;

describe('Every route of the table, with its owner and access mode: open routes as the spec lists them, the stream alone taking access_token', () => {
  it('declares exactly these routes, in this order (first match wins)', () => {
    expect(
      ROUTES.map((route) => [route.method, route.path, route.target, route.auth, route.operationId].join(' ')),
    ).toEqual(
      EXPECTED_ROUTES.trim()
        .split('\n')
        .map((line) => line.trim()),
    );
  });
});

describe('The route table declares one access mode per route: open, bearer, bearer-or-query for the run-log stream only, task-result-token for what a run task calls', () => {
  it('every route has one of the four modes', () => {
    for (const route of ROUTES)
      expect(['none', 'bearer', 'bearer-or-query', 'task-result-token'], route.operationId).toContain(route.auth);
  });

  it("Issue 48, item 2: only a run task's callback, its run's log and the plan's JSON it judges take a task's access token", () => {
    expect(ROUTES.filter((route) => route.auth === 'task-result-token').map((route) => route.operationId)).toEqual([
      'reportTaskResult',
      'readTaskRunLog',
      'readTaskPlanJson',
    ]);
  });

  it('the run-log stream is the only route that accepts the token in the query', () => {
    expect(ROUTES.filter((route) => route.auth === 'bearer-or-query').map((route) => route.operationId)).toEqual([
      'streamRunLogs',
    ]);
  });

  it('every /internal/ route, the catch-all included, takes the token in the Authorization header only', () => {
    const internal = ROUTES.filter((route) => route.path.startsWith('/internal/'));
    expect(internal.map((route) => route.operationId)).toEqual([
      'listRunsInPhase',
      'claimRun',
      'renewRunLease',
      'setRunPhase',
      'appendRunLogs',
      'getRunVariables',
      'putRunPlanJson',
      'sweepOutbound',
      'internal',
    ]);
    for (const route of internal) expect(route.auth, route.operationId).toBe('bearer');
  });

  it('documents 401 and 503 on every authenticated route and none of them on an open one; 403 only where the caller is authorized', () => {
    for (const route of ROUTES) {
      const documented = Object.keys(route.errorResponses ?? {});
      if (route.auth === 'none') expect(documented, route.operationId).not.toContain('401');
      else expect(documented, route.operationId).toEqual(expect.arrayContaining(['401', '503']));
      expect(documented.includes('403'), route.operationId).toBe(
        route.operationId === 'login' || (route.auth !== 'none' && !route.anyAuthenticatedCaller),
      );
    }
  });
});

function requestWith(headers: Record<string, string>, query = ''): ApiRequest {
  return {
    method: 'GET',
    path: '/x',
    headers,
    query: new URLSearchParams(query),
    body: new Uint8Array(),
    remoteAddress: '127.0.0.1',
  };
}

function readOutcome(request: ApiRequest, allowQuery: boolean): string | null | [number, string, string] {
  try {
    return readBearerToken(request, allowQuery);
  } catch (error) {
    return [(error as ApiError).status, (error as ApiError).reason, (error as ApiError).message];
  }
}

describe('The bearer token comes from "Authorization: Bearer <token>", or from ?access_token= only where the route allows it', () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER   abc  ', 'abc'],
  ])('reads %j as the token', (header, token) => {
    expect(readOutcome(requestWith({ authorization: header }), false)).toBe(token);
  });

  it.each([['Token abc'], ['Bearer'], ['Bearer '], ['Bearer a b'], ['Basic YTpi'], [' Bearer abc'], ['Bearerabc']])(
    'refuses %j with 401 MalformedAuthorizationHeader',
    (header) => {
      expect(readOutcome(requestWith({ authorization: header }), true)).toEqual([
        401,
        'MalformedAuthorizationHeader',
        'Authorization header must be "Bearer <token>"',
      ]);
    },
  );

  it('takes access_token only where allowed, and never an empty one', () => {
    expect(readOutcome(requestWith({}, 'access_token=q'), false)).toBeNull();
    expect(readOutcome(requestWith({}, 'access_token=q'), true)).toBe('q');
    expect(readOutcome(requestWith({}, 'access_token='), true)).toBeNull();
    expect(readOutcome(requestWith({}), true)).toBeNull();
  });

  it('prefers the header over access_token', () => {
    expect(readOutcome(requestWith({ authorization: 'Bearer header' }, 'access_token=query'), true)).toBe('header');
  });
});

describe('A request matches the first route whose path and method fit; HEAD is GET; a known path with another method is 405', () => {
  const matcher = new RouteMatcher(ROUTES);
  const found = (method: string, path: string) => {
    const lookup = matcher.lookup(method, path);
    return lookup.kind === 'found' ? [lookup.match.route.operationId, lookup.match.params] : lookup;
  };

  it.each([
    ['GET', '/internal/runs', ['listRunsInPhase', {}]],
    ['DELETE', '/internal/runs', ['internal', { '*': 'runs' }]],
    ['POST', `/internal/runs/${RUN_ID}/phase`, ['setRunPhase', { run: RUN_ID }]],
    ['GET', '/internal/anything/else', ['internal', { '*': 'anything/else' }]],
    ['HEAD', '/healthz', ['getHealth', {}]],
    [
      'GET',
      '/apis/platform.dev/v1alpha1/namespaces/team/workspaces/web/status',
      ['getWorkspaceStatus', { namespace: 'team', name: 'web' }],
    ],
    ['GET', `/api/v1alpha1/run-logs/team/${RUN_ID}`, ['streamRunLogs', { project: 'team', run: RUN_ID }]],
    ['PUT', '/bridge/x', ['identityBridge', { '*': 'x' }]],
  ])('%s %s → %j', (method, path, expected) => {
    expect(found(method, path)).toEqual(expected);
  });

  it('a known path with a method no route takes is 405 listing the methods it takes', () => {
    expect(found('DELETE', '/healthz')).toEqual({ kind: 'method-not-allowed', allowed: ['GET'] });
    expect(found('HEAD', '/api/v1alpha1/auth/login')).toEqual({ kind: 'method-not-allowed', allowed: ['POST'] });
    expect(found('POST', '/apis/platform.dev/v1alpha1/projects/p')).toEqual({
      kind: 'method-not-allowed',
      allowed: ['GET', 'PUT', 'PATCH', 'DELETE'],
    });
  });

  it('an unknown path is not found', () => {
    expect(found('GET', '/nowhere')).toEqual({ kind: 'not-found' });
  });
});
