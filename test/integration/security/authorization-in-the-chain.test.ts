// Issue 20, build item 1: what a request is authorized as is decided once, in the chain, from the route
// table, and the handler reaches the cluster only as that decision allows (as Kargo's authorizing client).
// The expectations are written out here, not derived from the table under test.
import { describe, expect, it } from 'vitest';
import type { Principal, RunTaskPrincipal } from '../../../shared/auth/principal.ts';
import { AuthorizationDecision } from '../../../shared/authz/authorization-decision.ts';
import { AuthorizedObjects, callAttributes } from '../../../shared/authz/authorized-objects.ts';
import type { AuthorizationAttributes, Authorizer } from '../../../shared/authz/authorizer.ts';
import { ApiError } from '../../../shared/base/http/api-error.ts';
import { errorAnswer } from '../../../shared/contract/routes/error-dress.ts';
import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import type { KubernetesCall, KubernetesRestClient } from '../../../shared/base/kubernetes/kubernetes-rest-client.ts';
import { ClusterObjects } from '../../../shared/domain/resources/cluster-objects.ts';
import { WORKSPACE } from '../../../shared/contract/kinds/platform-kinds.ts';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import { effectiveAuthorization } from '../../../shared/contract/routes/route-authorization.ts';
import { routeTable, type RouteDefinition } from '../../../shared/contract/routes/route-table.ts';
import {
  withAuthorization,
  type AuthorizationResolvers,
} from '../../../shared/server/runtime/filters/authorization.ts';
import type { FilteredRequest } from '../../../shared/server/runtime/filters/filter-chain.ts';
import { authorizedWrites } from '../../../functions/resources/kinds/authorized-writes.ts';
import type { RequestAuthenticator } from '../../../shared/auth/request-authenticator.ts';
import { createCoreHandler } from '../../../shared/server/runtime/core-handler.ts';
import type { RouteHandler } from '../../../shared/server/runtime/function-definition.ts';
import { silentLogger } from '../../support/function-servers.ts';
import { plainWrites } from '../../../functions/resources/kinds/resource-writes.ts';

const GROUP = 'platform.dev';
const CALLER: Principal = {
  type: 'serviceaccount',
  name: 'system:serviceaccount:ci:caller',
  uid: 'u',
  groups: [],
  extra: {},
};
const PARAMETERS: Record<string, string> = {
  namespace: 'ns',
  name: 'obj',
  project: 'proj',
  workspace: 'ws',
  run: 'run-id',
  rollout: 'ro',
  notification: 'notif',
  delivery: '1',
  taskResult: 'task-result-id',
};
/** A run task's caller (issue 48): its token was issued for the task result PARAMETERS names. */
const TASK_CALLER: RunTaskPrincipal = {
  type: 'runtask',
  name: 'runtask:proj/check',
  taskResult: 'task-result-id',
  run: 'run-id',
  project: 'proj',
  workspace: 'ws',
};

/** Attributes in one line: `verb resource[/subresource][.group][ in <namespace>][ named <name>]`, or `verb <path>`. */
function described(attributes: AuthorizationAttributes): string {
  if ('nonResourcePath' in attributes) return `${attributes.verb} ${attributes.nonResourcePath}`;
  const resource = `${attributes.resource}${attributes.subresource ? `/${attributes.subresource}` : ''}`;
  return [
    attributes.verb,
    `${resource}${attributes.group ? `.${attributes.group}` : ''}`,
    ...(attributes.namespace !== undefined ? [`in ${attributes.namespace}`] : []),
    ...(attributes.name !== undefined ? [`named ${attributes.name}`] : []),
  ].join(' ');
}

/** An authorizer that records what it is asked and refuses what `refuse` says (or cannot answer what `unanswered` says). */
function recordingAuthorizer(
  refuse: (attributes: AuthorizationAttributes) => boolean = () => false,
  unanswered: (attributes: AuthorizationAttributes) => boolean = () => false,
) {
  const asked: string[] = [];
  const authorizer: Authorizer = {
    async authorize(_principal, attributes) {
      asked.push(described(attributes));
      if (unanswered(attributes)) throw apiError('KubernetesUnavailable', 'the review could not be made');
      if (refuse(attributes)) throw apiError('Forbidden', `may not ${described(attributes)}`);
      return { reason: 'allowed by the recording authorizer' };
    },
  };
  return { authorizer, asked };
}

const RESOLVERS: AuthorizationResolvers = {
  runWorkspace: async (request) =>
    request.params.run === 'unknown'
      ? { notFound: apiError('RunNotFound', 'no such run') }
      : {
          name: 'run-ws',
          resolved: { id: request.params.run, workspace: 'run-ws' },
          readableAs: { verb: 'get', resource: 'workspaces', subresource: 'runs' },
        },
};

interface Passed {
  asked: string[];
  /** The decision the handler received; undefined when it was not reached. */
  decision: AuthorizationDecision | undefined;
}

/** Sends one request for `route` through the authorization filter alone, as the chain does after authentication. */
async function authorize(
  route: RouteDefinition,
  options: {
    query?: string;
    contentType?: string;
    params?: Record<string, string>;
    refuse?: boolean;
    /** Refuse (or leave unanswered) only this verb. */
    refuseVerb?: string;
    unansweredVerb?: string;
  } = {},
): Promise<Passed> {
  const { authorizer, asked } = recordingAuthorizer(
    (attributes) => (options.refuse ?? false) || attributes.verb === options.refuseVerb,
    (attributes) => attributes.verb === options.unansweredVerb,
  );
  const params: Record<string, string> = {};
  for (const name of Object.keys(route.pathParameters ?? {}))
    params[name] = options.params?.[name] ?? PARAMETERS[name]!;
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name]!).replace('/*', '/other');
  const request = {
    method: route.method === '*' ? 'DELETE' : route.method,
    path,
    query: new URLSearchParams(options.query ?? ''),
    headers: options.contentType ? { 'content-type': options.contentType } : {},
    body: new Uint8Array(),
    route,
    params,
    principal: route.auth === 'none' ? null : route.auth === 'task-result-token' ? TASK_CALLER : CALLER,
  } as unknown as FilteredRequest;
  let decision: AuthorizationDecision | undefined;
  await withAuthorization(
    authorizer,
    GROUP,
    RESOLVERS,
  )(request, (passed) => {
    decision = passed.authorization;
    return { status: 200, headers: {}, body: undefined };
  });
  return { asked, decision };
}

const OPEN = 'open';
const ANY_CALLER = 'any authenticated caller';
const BOUND_TASK_RESULT = 'the run task token of the task result the path names';

/**
 * A kind's routes, written out: what each operation is authorized as. `alsoDecided`: the verbs the chain
 * decides besides a write's own (a Rollout's `approve`, issue 37), asked after it and granted beside it.
 */
function kindRoutes(
  kind: string,
  plural: string,
  namespaced: boolean,
  alsoDecided: string[] = [],
): Record<string, string | string[]> {
  const resource = `${plural}.${GROUP}`;
  const status = `${plural}/status.${GROUP}`;
  const where = namespaced ? ' in ns' : '';
  const write = (verb: string, named: string) =>
    [verb, ...alsoDecided].map((each) => `${each} ${resource}${where}${named}`);
  return {
    [`list${kind}s`]: `list ${resource}${where}`,
    ...(namespaced ? { [`list${kind}sInAllNamespaces`]: `list ${resource}` } : {}),
    [`create${kind}`]: write('create', ''),
    [`get${kind}`]: `get ${resource}${where} named obj`,
    [`replace${kind}`]: write('update', ' named obj'),
    [`patch${kind}`]: write('patch', ' named obj'),
    [`delete${kind}`]: `delete ${resource}${where} named obj`,
    [`get${kind}Status`]: `get ${status}${where} named obj`,
    [`replace${kind}Status`]: `update ${status}${where} named obj`,
    [`patch${kind}Status`]: `patch ${status}${where} named obj`,
  };
}

/**
 * Every route of the table and what it is authorized as (several: each asked in turn, all granted); a route
 * added without an entry here fails.
 */
const EXPECTED: Record<string, string | string[] | { asked: string; granted: string[] }> = {
  getHealth: OPEN,
  getReadiness: OPEN,
  login: OPEN,
  getPublicConfig: OPEN,
  getOpenApiDocument: OPEN,
  getApiReference: OPEN,
  identityBridge: OPEN,
  whoAmI: ANY_CALLER,
  getKubernetesVersion: ANY_CALLER,
  getCoreApiVersions: ANY_CALLER,
  getCoreApiResources: ANY_CALLER,
  getApiGroups: ANY_CALLER,
  getPlatformApiGroup: ANY_CALLER,
  getPlatformApiResources: ANY_CALLER,
  getOpenApiV2: ANY_CALLER,
  getOpenApiV3: ANY_CALLER,
  getOpenApiV3PlatformGroup: ANY_CALLER,
  // A caller asks about itself, as Kubernetes' system:basic-user lets anyone; the answer is the authorizer's.
  createSelfSubjectAccessReview: ANY_CALLER,
  createSelfSubjectRulesReview: ANY_CALLER,
  getProjectNamespace: 'get namespaces named ns',
  ...kindRoutes('Project', 'projects', false),
  ...kindRoutes('Workspace', 'workspaces', true),
  ...kindRoutes('Rollout', 'rollouts', true, ['approve']),
  ...kindRoutes('VariableSet', 'variablesets', true),
  ...kindRoutes('Notification', 'notifications', true),
  ...kindRoutes('RunTask', 'runtasks', true),
  // A Notification's delivery log is read as the Notification, and redelivering one event is an update of it.
  listNotificationDeliveries: `get notifications.${GROUP} in proj named notif`,
  redeliverNotification: `update notifications.${GROUP} in proj named notif`,
  // The scheduled trigger of the outbound engine is the controller's kind of route: a non-resource path.
  sweepOutbound: 'post /internal/outbound/sweep',
  startRun: `create workspaces/runs.${GROUP} in proj named ws`,
  listWorkspaceRuns: `list workspaces/runs.${GROUP} in proj named ws`,
  listProjectRuns: `list workspaces/runs.${GROUP} in proj`,
  getRun: `get workspaces/runs.${GROUP} in proj named run-ws`,
  cancelRun: `create workspaces/runs.${GROUP} in proj named run-ws`,
  applyPlan: `approve workspaces/runs.${GROUP} in proj named run-ws`,
  withdrawPlanApproval: `approve workspaces/runs.${GROUP} in proj named run-ws`,
  // A run's task results are read as the run; letting a run past a failed mandatory task is `override` on it (issue 48).
  listRunTaskResults: `get workspaces/runs.${GROUP} in proj named run-ws`,
  overrideRunTasks: `override workspaces/runs.${GROUP} in proj named run-ws`,
  // A plan's JSON holds at least what the run's log shows: it is read as the log is (issue 48).
  getRunPlanJson: `get workspaces/log.${GROUP} in proj named run-ws`,
  // A run task's callback and its reads (the run's log, the plan's JSON) answer only to the token issued for that task
  // result: nothing is asked.
  reportTaskResult: BOUND_TASK_RESULT,
  readTaskRunLog: BOUND_TASK_RESULT,
  readTaskPlanJson: BOUND_TASK_RESULT,
  // Approving and withdrawing are the server's patch of the Rollout's status: the one verb asked stands for it.
  approveRollout: {
    asked: `approve rollouts.${GROUP} in proj named ro`,
    granted: [
      `approve rollouts.${GROUP} in proj named ro`,
      `get rollouts.${GROUP} in proj named ro`,
      `patch rollouts/status.${GROUP} in proj named ro`,
    ],
  },
  withdrawRolloutApproval: {
    asked: `approve rollouts.${GROUP} in proj named ro`,
    granted: [
      `approve rollouts.${GROUP} in proj named ro`,
      `get rollouts.${GROUP} in proj named ro`,
      `patch rollouts/status.${GROUP} in proj named ro`,
    ],
  },
  createProjectToken: `create tokens.${GROUP} in proj`,
  listProjectTokens: `list tokens.${GROUP} in proj`,
  revokeProjectToken: `delete tokens.${GROUP} in proj named obj`,
  streamRunLogs: `get workspaces/log.${GROUP} in proj named run-ws`,
  listAuditEvents: 'list events.audit.k8s.io',
  listRunsInPhase: 'get /internal/runs',
  getMetrics: 'get /metrics',
  claimRun: 'post /internal/runs/claim',
  renewRunLease: 'post /internal/runs/run-id/lease',
  setRunPhase: 'post /internal/runs/run-id/phase',
  appendRunLogs: 'post /internal/runs/run-id/logs',
  getRunVariables: 'get /internal/runs/run-id/variables',
  putRunPlanJson: 'post /internal/runs/run-id/plan-json',
  internal: 'delete /internal/other',
};

const routes = routeTable(GROUP);
const routeOf = (operationId: string) => routes.find((route) => route.operationId === operationId)!;

describe('issue 20: every route declares its authorization in the route table, and the chain authorizes exactly that', () => {
  it('the table has exactly the routes written out here', () => {
    expect(routes.map((route) => route.operationId).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const [operationId, expected] of Object.entries(EXPECTED)) {
    const shownAs = typeof expected === 'object' && !Array.isArray(expected) ? expected : undefined;
    it(`${operationId}: ${shownAs ? `${shownAs.asked}, granting ${shownAs.granted.join(' and ')}` : [expected].flat().join(', then ')}`, async () => {
      const { asked, decision } = await authorize(routeOf(operationId));
      const shown = decision?.granted.map(described) ?? [];
      if (expected === OPEN) {
        expect({ asked, decision }).toEqual({ asked: [], decision: undefined });
      } else if (expected === ANY_CALLER) {
        expect({ asked, shown }).toEqual({ asked: [], shown: [] });
        expect(decision?.principal).toBe(CALLER);
      } else if (expected === BOUND_TASK_RESULT) {
        expect({ asked, shown }).toEqual({ asked: [], shown: [] });
        expect(decision?.principal).toBe(TASK_CALLER);
        // Another task result's token is refused before the handler, and nothing is asked.
        const other = authorize(routeOf(operationId), { params: { taskResult: 'another-task-result' } });
        await expect(other).rejects.toMatchObject({ status: 403, reason: 'TaskResultTokenMismatch' });
      } else if (shownAs) {
        expect({ asked, shown }).toEqual({ asked: [shownAs.asked], shown: shownAs.granted });
      } else {
        // Asked once each, and what the handler receives is what was asked.
        expect({ asked, shown }).toEqual({ asked: [expected].flat(), shown: [expected].flat() });
      }
    });
  }

  it('a route with a token and no declaration (or two) cannot be in the table', () => {
    const bare: RouteDefinition = {
      method: 'GET',
      path: '/x',
      target: 'resources',
      auth: 'bearer',
      operationId: 'x',
      summary: '',
    };
    expect(() => effectiveAuthorization(bare)).toThrow(/declare exactly one/);
    expect(() =>
      effectiveAuthorization({ ...bare, anyAuthenticatedCaller: true, authorization: { nonResourcePath: true } }),
    ).toThrow(/declare exactly one/);
  });
});

describe('issue 20: a watch is authorized as `watch`, server-side apply as `patch`', () => {
  for (const operationId of ['listWorkspaces', 'listWorkspacesInAllNamespaces', 'listProjects']) {
    it(`${operationId}: ?watch=1 and ?watch=true are watch; ?watch=0 is list`, async () => {
      const route = routeOf(operationId);
      const verbs = [];
      for (const query of ['watch=1', 'watch=true', 'watch=0'])
        verbs.push((await authorize(route, { query })).asked.map((asked) => asked.split(' ')[0]));
      expect(verbs).toEqual([['watch'], ['watch'], ['list']]);
    });
  }

  it('?watch on anything but a list changes nothing: a get stays `get`', async () => {
    const { asked } = await authorize(routeOf('getWorkspace'), { query: 'watch=1' });
    expect(asked).toEqual([`get workspaces.${GROUP} in ns named obj`]);
  });

  it('a server-side apply (PATCH, application/apply-patch+yaml) is authorized as exactly `patch` on the object', async () => {
    const { asked } = await authorize(routeOf('patchWorkspace'), { contentType: 'application/apply-patch+yaml' });
    expect(asked).toEqual([`patch workspaces.${GROUP} in ns named obj`]);
  });
});

describe("issue 37: a Rollout write's `approve` is decided by the chain with the write's own verb; the handler only consults it", () => {
  const approve = `approve rollouts.${GROUP} in ns named obj`;
  const patch = `patch rollouts.${GROUP} in ns named obj`;

  it('a caller who may patch but not approve is authorized for the patch; the decision holds the refusal of `approve` (403 naming the verb)', async () => {
    const { asked, decision } = await authorize(routeOf('patchRollout'), { refuseVerb: 'approve' });
    expect({ asked, granted: decision?.granted.map(described) }).toEqual({ asked: [patch, approve], granted: [patch] });
    expect(() => decision!.requireVerb('patch')).not.toThrow();
    let refusal: unknown;
    try {
      decision!.requireVerb('approve');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({ status: 403, reason: 'Forbidden', message: `may not ${approve}` });
  });

  it('a caller who may approve: `approve` is granted beside the write, and requireVerb passes', async () => {
    const { decision } = await authorize(routeOf('replaceRollout'));
    expect(decision?.granted.map(described)).toEqual([
      `update rollouts.${GROUP} in ns named obj`,
      `approve rollouts.${GROUP} in ns named obj`,
    ]);
    expect(() => decision!.requireVerb('approve')).not.toThrow();
  });

  it('a verb the chain did not decide for the route is a bug of the handler, not a refusal: it throws an Error', async () => {
    const { decision } = await authorize(routeOf('patchRolloutStatus'));
    let thrown: unknown;
    try {
      decision!.requireVerb('approve');
    } catch (error) {
      thrown = error;
    }
    // Caught rather than `toThrow(message)`, which a thrown `undefined` also passes.
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).not.toBeInstanceOf(ApiError);
    expect((thrown as Error).message).toBe('a handler needs approve, which the chain does not decide for this route');
  });

  it('a review of `approve` that cannot be made fails the write closed (503), before any handler', async () => {
    const failed = await authorize(routeOf('patchRollout'), { unansweredVerb: 'approve' }).catch(
      (error: unknown) => error,
    );
    expect(failed).toMatchObject({ status: 503, reason: 'KubernetesUnavailable' });
  });

  it('the approve route: `approve` stands for the read of that Rollout and the patch of its status (issue 43 item 7), nothing else', async () => {
    const { decision } = await authorize(routeOf('approveRollout'));
    const { objects, calls } = recordedCluster();
    const cluster = new AuthorizedObjects(objects, decision!);
    const rollout = `/apis/${GROUP}/v1alpha1/namespaces/proj/rollouts/ro`;
    await cluster.send({ method: 'GET', path: rollout });
    await cluster.send({ method: 'PATCH', path: `${rollout}/status` });
    for (const call of [
      { method: 'PUT', path: rollout },
      { method: 'DELETE', path: rollout },
      { method: 'PATCH', path: rollout },
      { method: 'PUT', path: `${rollout}/status` },
      { method: 'PATCH', path: `/apis/${GROUP}/v1alpha1/namespaces/proj/rollouts/other` },
      { method: 'PATCH', path: `/apis/${GROUP}/v1alpha1/namespaces/proj/workspaces/ro` },
    ])
      await expect((async () => cluster.send(call))(), `${call.method} ${call.path}`).rejects.toThrow(
        /a handler tried to/,
      );
    expect(calls).toEqual([`GET ${rollout}`, `PATCH ${rollout}/status`]);
  });

  it('a refused write is refused for its own verb: `approve` is not asked', async () => {
    const { authorizer, asked } = recordingAuthorizer((attributes) => attributes.verb === 'patch');
    await expect(
      AuthorizationDecision.decide(
        authorizer,
        CALLER,
        { verb: 'patch', group: GROUP, resource: 'rollouts', namespace: 'ns', name: 'obj' },
        undefined,
        { decidesAlso: ['approve'] },
      ),
    ).rejects.toMatchObject({ status: 403 });
    expect(asked).toEqual([patch]);
  });
});

describe('issue 20: a refused caller never reaches the handler; an unknown run is authorized without a name, then 404', () => {
  it('a refusal on a resource route is a Kubernetes Status 403, and the handler is not reached', async () => {
    const refused = await authorize(routeOf('getWorkspace'), { refuse: true }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 403 });
    // Dressed once, by the error filter, as the route declares (issue 43 item 3).
    const answer = errorAnswer(refused as ApiError, { route: routeOf('getWorkspace'), principal: CALLER });
    expect(JSON.parse(String(answer.body))).toMatchObject({ kind: 'Status', code: 403 });
  });

  it('an unknown run: authorized on the Project without a name, then RunNotFound', async () => {
    const { authorizer, asked } = recordingAuthorizer();
    const route = routeOf('getRun');
    const request = {
      method: 'GET',
      path: '/api/v1alpha1/projects/proj/runs/unknown',
      query: new URLSearchParams(),
      headers: {},
      route,
      params: { project: 'proj', run: 'unknown' },
      principal: CALLER,
    } as unknown as FilteredRequest;
    let reached = false;
    const answer = (async () =>
      withAuthorization(
        authorizer,
        GROUP,
        RESOLVERS,
      )(request, () => {
        reached = true;
        return { status: 200, headers: {}, body: undefined };
      }))();
    await expect(answer).rejects.toMatchObject({ status: 404, reason: 'RunNotFound' });
    expect({ asked, reached }).toEqual({ asked: [`get workspaces/runs.${GROUP} in proj`], reached: false });
  });
});

/** The cluster behind a recording REST client: every call it would send (a watch with its query), answered 200. */
function recordedCluster() {
  const calls: string[] = [];
  const rest = {
    async call(call: KubernetesCall) {
      calls.push(`${call.method} ${call.path}`);
      return { status: 200, body: { metadata: { name: 'obj', resourceVersion: '1' } } };
    },
    async watch(call: KubernetesCall) {
      calls.push(`${call.method} ${call.path}?${call.query}`);
      return { events: [] };
    },
  } as unknown as KubernetesRestClient;
  return { objects: new ClusterObjects(rest, GROUP), calls };
}

const OBJECT_PATH = `/apis/${GROUP}/v1alpha1/namespaces/ns/workspaces/obj`;
const object = (resourceVersion?: string): PlatformObject => ({
  apiVersion: `${GROUP}/v1alpha1`,
  kind: 'Workspace',
  metadata: { name: 'obj', namespace: 'ns', ...(resourceVersion ? { resourceVersion } : {}) },
});

async function decisionFor(verb: string, refuse: (attributes: AuthorizationAttributes) => boolean = () => false) {
  return AuthorizationDecision.decide(recordingAuthorizer(refuse).authorizer, CALLER, {
    verb,
    group: GROUP,
    resource: 'workspaces',
    namespace: 'ns',
    name: 'obj',
  });
}

describe('issue 20: a handler reaches the cluster only as it was authorized (an authorizing client, as Kargo)', () => {
  it('a request authorized to `get` one Workspace may read it, and nothing else: each other call throws and is not sent', async () => {
    const { objects, calls } = recordedCluster();
    const cluster = new AuthorizedObjects(objects, await decisionFor('get'));
    await cluster.send({ method: 'GET', path: OBJECT_PATH });
    const attempts = [
      { method: 'DELETE', path: OBJECT_PATH },
      { method: 'PATCH', path: OBJECT_PATH },
      { method: 'PUT', path: OBJECT_PATH },
      { method: 'GET', path: `${OBJECT_PATH}/status` },
      { method: 'GET', path: `/apis/${GROUP}/v1alpha1/namespaces/ns/workspaces/other` },
      { method: 'GET', path: `/apis/${GROUP}/v1alpha1/namespaces/other/workspaces/obj` },
      { method: 'GET', path: `/apis/${GROUP}/v1alpha1/namespaces/ns/rollouts/obj` },
      { method: 'GET', path: `/apis/${GROUP}/v1alpha1/namespaces/ns/workspaces` },
      { method: 'GET', path: '/api/v1/namespaces/ns/secrets/obj' },
    ];
    for (const call of attempts)
      await expect((async () => cluster.send(call))(), `${call.method} ${call.path}`).rejects.toThrow(
        /was authorized for get workspaces/,
      );
    await expect(
      (async () =>
        cluster.watch(
          `/apis/${GROUP}/v1alpha1/namespaces/ns/workspaces`,
          new URLSearchParams(),
          new AbortController().signal,
        ))(),
    ).rejects.toThrow(/tried to watch/);
    expect(calls).toEqual([`GET ${OBJECT_PATH}`]);
  });

  it('a request authorized to `list` may not `watch` the same collection', async () => {
    const { objects, calls } = recordedCluster();
    const decision = await AuthorizationDecision.decide(recordingAuthorizer().authorizer, CALLER, {
      verb: 'list',
      group: GROUP,
      resource: 'workspaces',
      namespace: 'ns',
    });
    const cluster = new AuthorizedObjects(objects, decision);
    const collection = `/apis/${GROUP}/v1alpha1/namespaces/ns/workspaces`;
    await cluster.send({ method: 'GET', path: collection });
    await expect(
      (async () => cluster.send({ method: 'GET', path: collection, query: new URLSearchParams('watch=true') }))(),
    ).rejects.toThrow(/tried to watch/);
    expect(calls).toEqual([`GET ${collection}`]);
  });

  it('apply authorized as `patch` only: applying to an existing object (resourceVersion precondition) passes, one that could create throws', async () => {
    const { objects, calls } = recordedCluster();
    const cluster = new AuthorizedObjects(objects, await decisionFor('patch'));
    const writes = authorizedWrites(plainWrites(objects, WORKSPACE), cluster, WORKSPACE);
    const location = { namespace: 'ns', name: 'obj' };
    // Patching reads the object it changes: allowed.
    await cluster.find(OBJECT_PATH);
    await writes.apply(location, object('1'), new URLSearchParams());
    await expect((async () => writes.apply(location, object(), new URLSearchParams()))()).rejects.toThrow(
      /tried to create/,
    );
    await expect((async () => writes.delete(location, { kind: 'DeleteOptions', apiVersion: 'v1' }))()).rejects.toThrow(
      /tried to delete/,
    );
    await expect((async () => writes.create({ namespace: 'ns' }, object(), new URLSearchParams()))()).rejects.toThrow(
      /tried to create/,
    );
    await expect((async () => writes.replace(location, object('1'), new URLSearchParams()))()).rejects.toThrow(
      /tried to update/,
    );
    expect(calls).toEqual([`GET ${OBJECT_PATH}`, `PATCH ${OBJECT_PATH}`]);
  });

  it('apply that creates: `create` is authorized by the same authorizer, then allowed; refused, it stays refused', async () => {
    const { objects, calls } = recordedCluster();
    const allowed = await decisionFor('patch');
    await allowed.authorizeAlso('create');
    const writes = authorizedWrites(
      plainWrites(objects, WORKSPACE),
      new AuthorizedObjects(objects, allowed),
      WORKSPACE,
    );
    await writes.apply({ namespace: 'ns', name: 'obj' }, object(), new URLSearchParams());
    expect(calls).toEqual([`PATCH ${OBJECT_PATH}`]);
    expect(allowed.granted.map(described)).toEqual([
      `patch workspaces.${GROUP} in ns named obj`,
      `create workspaces.${GROUP} in ns named obj`,
    ]);

    const refused = await decisionFor('patch', (attributes) => attributes.verb === 'create');
    await expect(refused.authorizeAlso('create')).rejects.toMatchObject({ status: 403 });
    expect(refused.allows({ verb: 'create', group: GROUP, resource: 'workspaces', namespace: 'ns', name: 'obj' })).toBe(
      false,
    );
  });
});

describe('issue 20: the chain runs route, authenticate, authorize, validate, then the handler', () => {
  /** The internal function's routes behind the real chain, with handlers that only count their calls. */
  function internalChain(refuse: boolean) {
    const { authorizer, asked } = recordingAuthorizer(() => refuse);
    let handled = 0;
    const handlers: Record<string, RouteHandler> = {};
    for (const route of routes.filter((candidate) => candidate.target === 'internal'))
      handlers[route.operationId] = () => {
        handled += 1;
        return { status: 200, headers: {}, body: undefined };
      };
    const authenticator = {
      cachedPrincipal: () => CALLER,
      authenticate: async () => CALLER,
    } as unknown as RequestAuthenticator;
    const serve = createCoreHandler(
      { name: 'internal', handlers },
      { routes, authenticator, authorizer, apiGroup: GROUP, logger: silentLogger, corsAllowedOrigins: [] },
    );
    const claim = (body: string) =>
      serve({
        method: 'POST',
        path: '/internal/runs/claim',
        query: new URLSearchParams(),
        headers: { authorization: 'Bearer token', 'content-type': 'application/json' },
        body: new TextEncoder().encode(body),
        remoteAddress: '127.0.0.1',
      });
    return { claim, asked, handled: () => handled };
  }

  it('a refused caller with an invalid body gets 403, not 400; no handler runs', async () => {
    const chain = internalChain(true);
    expect((await chain.claim('{"leaseSeconds": "soon"}')).status).toBe(403);
    expect({ asked: chain.asked, handled: chain.handled() }).toEqual({
      asked: ['post /internal/runs/claim'],
      handled: 0,
    });
  });

  it('an allowed caller with an invalid body gets 400 before its handler runs', async () => {
    const chain = internalChain(false);
    expect((await chain.claim('{"leaseSeconds": "soon"}')).status).toBe(400);
    expect({ asked: chain.asked, handled: chain.handled() }).toEqual({
      asked: ['post /internal/runs/claim'],
      handled: 0,
    });
    expect((await chain.claim('{"leaseSeconds": 30}')).status).toBe(200);
    expect(chain.handled()).toBe(1);
  });
});

describe("issue 20: the filter's edges: exactly the attributes, the platform's own errors off Status routes, no missing declarations", () => {
  /** The attributes the authorizer receives for one request to `route`, as they are (no key set to undefined). */
  async function attributesOf(operationId: string): Promise<AuthorizationAttributes[]> {
    const received: AuthorizationAttributes[] = [];
    const route = routeOf(operationId);
    const params = Object.fromEntries(Object.keys(route.pathParameters ?? {}).map((name) => [name, PARAMETERS[name]!]));
    const request = {
      method: route.method,
      path: route.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name]!),
      query: new URLSearchParams(),
      headers: {},
      route,
      params,
      principal: CALLER,
    } as unknown as FilteredRequest;
    const authorizer: Authorizer = {
      async authorize(_principal, attributes) {
        received.push(attributes);
        return { reason: 'allowed by the recording authorizer' };
      },
    };
    await withAuthorization(
      authorizer,
      GROUP,
      RESOLVERS,
    )(request, () => ({ status: 200, headers: {}, body: undefined }));
    return received;
  }

  it.each([
    ['listProjects', { verb: 'list', group: GROUP, resource: 'projects' }],
    ['getWorkspace', { verb: 'get', group: GROUP, resource: 'workspaces', namespace: 'ns', name: 'obj' }],
    ['getProjectStatus', { verb: 'get', group: GROUP, resource: 'projects', subresource: 'status', name: 'obj' }],
    ['listProjectRuns', { verb: 'list', group: GROUP, resource: 'workspaces', subresource: 'runs', namespace: 'proj' }],
    ['getProjectNamespace', { verb: 'get', group: '', resource: 'namespaces', name: 'ns' }],
    ['listRunsInPhase', { nonResourcePath: '/internal/runs', verb: 'get' }],
    ['getMetrics', { nonResourcePath: '/metrics', verb: 'get' }],
  ])('%s: the authorizer receives exactly %o', async (operationId, expected) => {
    expect(await attributesOf(operationId)).toStrictEqual([expected]);
  });

  it("a refusal on a route of the platform's own API is its JSON error (reason Forbidden), not a Kubernetes Status", async () => {
    const refused = await authorize(routeOf('listProjectRuns'), { refuse: true }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 403, reason: 'Forbidden' });
    expect(JSON.parse(String((refused as ApiError).toResponse().body))).not.toHaveProperty('kind');
  });

  it('a route whose resolver the function did not supply fails, naming the resolver and the route', async () => {
    const route = routeOf('getRun');
    const request = {
      method: 'GET',
      path: '/api/v1alpha1/projects/proj/runs/run-id',
      query: new URLSearchParams(),
      headers: {},
      route,
      params: { project: 'proj', run: 'run-id' },
      principal: CALLER,
    } as unknown as FilteredRequest;
    const answer = (async () =>
      withAuthorization(
        recordingAuthorizer().authorizer,
        GROUP,
        {},
      )(request, () => ({
        status: 200,
        headers: {},
        body: undefined,
      })))();
    await expect(answer).rejects.toThrow('no authorization resolver runWorkspace for getRun');
  });

  it('a route naming a kind the platform does not have cannot be in the table', () => {
    const route = { ...routeOf('getWorkspace'), resource: { kind: 'Nope', operation: 'get' } } as RouteDefinition;
    expect(() => effectiveAuthorization(route)).toThrow('route getWorkspace: no platform kind Nope');
  });
});

describe("issue 20: a call's attributes are read from its method and path as kube-apiserver's RequestInfo reads them", () => {
  const PLATFORM = `/apis/${GROUP}/v1alpha1`;
  const attributesOf = (method: string, path: string, query = '') =>
    callAttributes({ method, path, query: new URLSearchParams(query) });

  // toStrictEqual: an absent field is absent, not present and undefined (the decision compares every field).
  it.each([
    [
      'GET',
      `${PLATFORM}/namespaces/ns/workspaces/obj`,
      '',
      { verb: 'get', resource: 'workspaces', namespace: 'ns', name: 'obj' },
    ],
    [
      'GET',
      `${PLATFORM}/namespaces/ns/workspaces/obj/status`,
      '',
      { verb: 'get', resource: 'workspaces', subresource: 'status', namespace: 'ns', name: 'obj' },
    ],
    ['GET', `${PLATFORM}/projects`, '', { verb: 'list', resource: 'projects' }],
    ['GET', `${PLATFORM}/projects/obj`, '', { verb: 'get', resource: 'projects', name: 'obj' }],
    // Three segments are a scope only after `namespaces`: this is a subresource of a cluster-scoped object.
    [
      'GET',
      `${PLATFORM}/projects/obj/status`,
      '',
      { verb: 'get', resource: 'projects', subresource: 'status', name: 'obj' },
    ],
    [
      'GET',
      `${PLATFORM}/namespaces/ns/workspaces`,
      'watch=true',
      { verb: 'watch', resource: 'workspaces', namespace: 'ns' },
    ],
    [
      'GET',
      `${PLATFORM}/namespaces/ns/workspaces`,
      'watch=1',
      { verb: 'watch', resource: 'workspaces', namespace: 'ns' },
    ],
    [
      'GET',
      `${PLATFORM}/namespaces/ns/workspaces`,
      'watch=0',
      { verb: 'list', resource: 'workspaces', namespace: 'ns' },
    ],
    [
      'DELETE',
      `${PLATFORM}/namespaces/ns/workspaces/obj`,
      '',
      { verb: 'delete', resource: 'workspaces', namespace: 'ns', name: 'obj' },
    ],
    [
      'DELETE',
      `${PLATFORM}/namespaces/ns/workspaces`,
      '',
      { verb: 'deletecollection', resource: 'workspaces', namespace: 'ns' },
    ],
    ['POST', `${PLATFORM}/namespaces/ns/workspaces`, '', { verb: 'create', resource: 'workspaces', namespace: 'ns' }],
    ['PUT', `${PLATFORM}/projects/obj`, '', { verb: 'update', resource: 'projects', name: 'obj' }],
    ['PATCH', `${PLATFORM}/projects/obj`, '', { verb: 'patch', resource: 'projects', name: 'obj' }],
    // A method without a verb of its own is named as itself, lower case, as RequestInfo does: no role grants it by accident.
    ['PROPFIND', `${PLATFORM}/projects/obj`, '', { verb: 'propfind', resource: 'projects', name: 'obj' }],
  ])('%s %s?%s: %o in the platform group', (method, path, query, expected) => {
    expect(attributesOf(method, path, query)).toStrictEqual({ group: GROUP, ...expected });
  });

  it.each([
    // A Namespace is a cluster-scoped object named like a namespace: `namespaces/<name>` is not a scope.
    ['GET', '/api/v1/namespaces/ns', { verb: 'get', resource: 'namespaces', name: 'ns' }],
    ['GET', '/api/v1/namespaces', { verb: 'list', resource: 'namespaces' }],
    ['GET', '/api/v1/namespaces/ns/secrets/obj', { verb: 'get', resource: 'secrets', namespace: 'ns', name: 'obj' }],
    ['DELETE', '/api/v1/namespaces/ns', { verb: 'delete', resource: 'namespaces', name: 'ns' }],
  ])('%s %s (the core group): %o', (method, path, expected) => {
    expect(attributesOf(method, path)).toStrictEqual({ group: '', ...expected });
  });
});

describe('issue 20: the authorizing client names what was granted, reads only named objects it may patch, and watches only as `watch`', () => {
  const COLLECTION = `/apis/${GROUP}/v1alpha1/namespaces/ns/workspaces`;

  it('a request authorized for nothing (any authenticated caller) may send nothing, and the error says so', async () => {
    const { authorizer, asked } = recordingAuthorizer();
    const decision = await AuthorizationDecision.decide(authorizer, CALLER, undefined);
    expect({ asked, granted: decision.granted }).toEqual({ asked: [], granted: [] });
    const { objects, calls } = recordedCluster();
    await expect((async () => new AuthorizedObjects(objects, decision).find(OBJECT_PATH))()).rejects.toThrow(
      'a handler tried to get workspaces.platform.dev "obj" in namespace "ns", but the request was authorized for nothing',
    );
    expect(calls).toEqual([]);
  });

  it('the error lists every grant of the decision, comma separated', async () => {
    const decision = await decisionFor('patch');
    await decision.authorizeAlso('create');
    const { objects } = recordedCluster();
    expect(() =>
      new AuthorizedObjects(objects, decision).require({ verb: 'delete', group: GROUP, resource: 'workspaces' }),
    ).toThrow(
      'but the request was authorized for patch workspaces.platform.dev "obj" in namespace "ns", create workspaces.platform.dev "obj" in namespace "ns"',
    );
  });

  it('`patch` lets a handler `get` the object it patches, never a collection: a nameless `get` is refused', async () => {
    const decision = await AuthorizationDecision.decide(recordingAuthorizer().authorizer, CALLER, {
      verb: 'patch',
      group: GROUP,
      resource: 'workspaces',
      namespace: 'ns',
    });
    const { objects } = recordedCluster();
    expect(() =>
      new AuthorizedObjects(objects, decision).require({
        verb: 'get',
        group: GROUP,
        resource: 'workspaces',
        namespace: 'ns',
      }),
    ).toThrow(/tried to get workspaces/);
  });

  it('a request authorized to `watch` a collection opens the watch (GET ?watch=true); the same client refuses a `list`', async () => {
    const decision = await AuthorizationDecision.decide(recordingAuthorizer().authorizer, CALLER, {
      verb: 'watch',
      group: GROUP,
      resource: 'workspaces',
      namespace: 'ns',
    });
    const { objects, calls } = recordedCluster();
    const cluster = new AuthorizedObjects(objects, decision);
    await cluster.watch(COLLECTION, new URLSearchParams(), new AbortController().signal);
    await expect((async () => cluster.send({ method: 'GET', path: COLLECTION }))()).rejects.toThrow(/tried to list/);
    expect(calls).toEqual([`GET ${COLLECTION}?watch=true`]);
  });

  it("the client builds paths and names the API group as the cluster's objects do", async () => {
    const { objects } = recordedCluster();
    const cluster = new AuthorizedObjects(objects, await decisionFor('get'));
    const location = { namespace: 'ns', name: 'obj' };
    expect([
      cluster.apiGroup,
      cluster.corePath('secrets', location),
      cluster.platformPath(WORKSPACE, location),
    ]).toEqual([GROUP, '/api/v1/namespaces/ns/secrets/obj', OBJECT_PATH]);
  });
});

describe('issue 20: a decision is on a resource only when its first grant is one', () => {
  it('`resource` of a decision with no grant, or on a non-resource path, is a bug: it throws', async () => {
    const { authorizer } = recordingAuthorizer();
    const nothing = await AuthorizationDecision.decide(authorizer, CALLER, undefined);
    const path = await AuthorizationDecision.decide(authorizer, CALLER, { nonResourcePath: '/metrics', verb: 'get' });
    expect(() => nothing.resource).toThrow('the route was not authorized on a resource');
    expect(() => path.resource).toThrow('the route was not authorized on a resource');
    await expect(path.authorizeAlso('post')).rejects.toThrow('the route was not authorized on a resource');
  });
});
