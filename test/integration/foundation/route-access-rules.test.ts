// The access rules of the route table, checked over HTTP on every route it declares (issues 15 and 20), against
// expectations written out here, not derived from the table under test: a route added, removed or given another
// access mode, and a caller let in or shut out where it was not, fails this file. An open route needs no token,
// every other route is 401 without one, the `access_token` query parameter authenticates on the run-log stream
// and nowhere else, and a user is refused (403) before any handler wherever its Role does not reach.
import { describe, expect, it } from 'vitest';
import { routeTable } from '../../../shared/contract/routes/route-table.ts';
import { TEAM_PROJECT, usePlatform } from '../../support/platform-fixture.ts';

const RUN_ID = '01936f3e-1b2c-7d4e-8f90-123456789abc';
const PARAMETER_VALUES: Record<string, string> = {
  namespace: TEAM_PROJECT,
  project: TEAM_PROJECT,
  name: 'web',
  workspace: 'web',
  run: RUN_ID,
  rollout: 'web',
  notification: 'web',
  delivery: '1',
  taskResult: '01936f3e-1b2c-7d4e-8f90-cba987654321',
};

type AccessMode = 'none' | 'bearer' | 'bearer-or-query' | 'task-result-token';

/**
 * Every route (a `*` route: GET and POST), how its token may come, and the status of a request without a body to
 * it, with `{parameters}` filled in (PARAMETER_VALUES: nothing of that name exists), made by: nobody (no token;
 * 401 is MissingToken), the admin, and a user: the team-a CI ServiceAccount, whose Role lets it get and list
 * Workspaces and create, get and list their runs in team-a, and nothing else (a run task's routes take only the
 * access token of a task's request: 401 to both). 403 is a refusal by the chain; any
 * other status is the handler's answer (400: no body; 415: a PATCH without a patch type; 404: nothing there).
 */
const EXPECTED = `
  GET    /healthz                                                                      none            200 200 200
  GET    /readyz                                                                       none            200 200 200
  GET    /metrics                                                                      bearer          401 200 403
  POST   /api/v1alpha1/auth/login                                                      none            400 403 403
  GET    /api/v1alpha1/auth/whoami                                                     bearer          401 200 200
  GET    /api/v1alpha1/system/public-config                                            none            200 200 200
  GET    /openapi.json                                                                 none            200 200 200
  GET    /docs                                                                         none            200 200 200
  GET    /version                                                                      bearer          401 200 200
  GET    /api                                                                          bearer          401 200 200
  GET    /api/v1                                                                       bearer          401 200 200
  GET    /api/v1/namespaces/{namespace}                                                bearer          401 200 403
  GET    /apis                                                                         bearer          401 200 200
  GET    /apis/platform.dev                                                            bearer          401 200 200
  GET    /apis/platform.dev/v1alpha1                                                   bearer          401 200 200
  GET    /openapi/v2                                                                   bearer          401 200 200
  GET    /openapi/v3                                                                   bearer          401 200 200
  GET    /openapi/v3/apis/platform.dev/v1alpha1                                        bearer          401 200 200
  POST   /apis/authorization.k8s.io/v1/selfsubjectaccessreviews                        bearer          401 400 400
  POST   /apis/authorization.k8s.io/v1/selfsubjectrulesreviews                         bearer          401 400 400
  GET    /apis/platform.dev/v1alpha1/projects                                          bearer          401 200 403
  POST   /apis/platform.dev/v1alpha1/projects                                          bearer          401 400 403
  GET    /apis/platform.dev/v1alpha1/projects/{name}                                   bearer          401 404 403
  PUT    /apis/platform.dev/v1alpha1/projects/{name}                                   bearer          401 400 403
  PATCH  /apis/platform.dev/v1alpha1/projects/{name}                                   bearer          401 415 403
  DELETE /apis/platform.dev/v1alpha1/projects/{name}                                   bearer          401 404 403
  GET    /apis/platform.dev/v1alpha1/projects/{name}/status                            bearer          401 404 403
  PUT    /apis/platform.dev/v1alpha1/projects/{name}/status                            bearer          401 400 403
  PATCH  /apis/platform.dev/v1alpha1/projects/{name}/status                            bearer          401 415 403
  GET    /apis/platform.dev/v1alpha1/namespaces/{namespace}/workspaces                 bearer          401 200 200
  GET    /apis/platform.dev/v1alpha1/workspaces                                        bearer          401 200 403
  POST   /apis/platform.dev/v1alpha1/namespaces/{namespace}/workspaces                 bearer          401 400 403
  GET    /apis/platform.dev/v1alpha1/namespaces/{namespace}/workspaces/{name}          bearer          401 404 404
  PUT    /apis/platform.dev/v1alpha1/namespaces/{namespace}/workspaces/{name}          bearer          401 400 403
  PATCH  /apis/platform.dev/v1alpha1/namespaces/{namespace}/workspaces/{name}          bearer          401 415 403
  DELETE /apis/platform.dev/v1alpha1/namespaces/{namespace}/workspaces/{name}          bearer          401 404 403
  GET    /apis/platform.dev/v1alpha1/namespaces/{namespace}/workspaces/{name}/status   bearer          401 404 403
  PUT    /apis/platform.dev/v1alpha1/namespaces/{namespace}/workspaces/{name}/status   bearer          401 400 403
  PATCH  /apis/platform.dev/v1alpha1/namespaces/{namespace}/workspaces/{name}/status   bearer          401 415 403
  GET    /apis/platform.dev/v1alpha1/namespaces/{namespace}/rollouts                   bearer          401 200 403
  GET    /apis/platform.dev/v1alpha1/rollouts                                          bearer          401 200 403
  POST   /apis/platform.dev/v1alpha1/namespaces/{namespace}/rollouts                   bearer          401 400 403
  GET    /apis/platform.dev/v1alpha1/namespaces/{namespace}/rollouts/{name}            bearer          401 404 403
  PUT    /apis/platform.dev/v1alpha1/namespaces/{namespace}/rollouts/{name}            bearer          401 400 403
  PATCH  /apis/platform.dev/v1alpha1/namespaces/{namespace}/rollouts/{name}            bearer          401 415 403
  DELETE /apis/platform.dev/v1alpha1/namespaces/{namespace}/rollouts/{name}            bearer          401 404 403
  GET    /apis/platform.dev/v1alpha1/namespaces/{namespace}/rollouts/{name}/status     bearer          401 404 403
  PUT    /apis/platform.dev/v1alpha1/namespaces/{namespace}/rollouts/{name}/status     bearer          401 400 403
  PATCH  /apis/platform.dev/v1alpha1/namespaces/{namespace}/rollouts/{name}/status     bearer          401 415 403
  GET    /apis/platform.dev/v1alpha1/namespaces/{namespace}/variablesets               bearer          401 200 403
  GET    /apis/platform.dev/v1alpha1/variablesets                                      bearer          401 200 403
  POST   /apis/platform.dev/v1alpha1/namespaces/{namespace}/variablesets               bearer          401 400 403
  GET    /apis/platform.dev/v1alpha1/namespaces/{namespace}/variablesets/{name}        bearer          401 404 403
  PUT    /apis/platform.dev/v1alpha1/namespaces/{namespace}/variablesets/{name}        bearer          401 400 403
  PATCH  /apis/platform.dev/v1alpha1/namespaces/{namespace}/variablesets/{name}        bearer          401 415 403
  DELETE /apis/platform.dev/v1alpha1/namespaces/{namespace}/variablesets/{name}        bearer          401 404 403
  GET    /apis/platform.dev/v1alpha1/namespaces/{namespace}/variablesets/{name}/status bearer          401 404 403
  PUT    /apis/platform.dev/v1alpha1/namespaces/{namespace}/variablesets/{name}/status bearer          401 400 403
  PATCH  /apis/platform.dev/v1alpha1/namespaces/{namespace}/variablesets/{name}/status bearer          401 415 403
  GET    /apis/platform.dev/v1alpha1/namespaces/{namespace}/notifications              bearer          401 200 403
  GET    /apis/platform.dev/v1alpha1/notifications                                     bearer          401 200 403
  POST   /apis/platform.dev/v1alpha1/namespaces/{namespace}/notifications              bearer          401 400 403
  GET    /apis/platform.dev/v1alpha1/namespaces/{namespace}/notifications/{name}       bearer          401 404 403
  PUT    /apis/platform.dev/v1alpha1/namespaces/{namespace}/notifications/{name}       bearer          401 400 403
  PATCH  /apis/platform.dev/v1alpha1/namespaces/{namespace}/notifications/{name}       bearer          401 415 403
  DELETE /apis/platform.dev/v1alpha1/namespaces/{namespace}/notifications/{name}       bearer          401 404 403
  GET    /apis/platform.dev/v1alpha1/namespaces/{namespace}/notifications/{name}/status bearer          401 404 403
  PUT    /apis/platform.dev/v1alpha1/namespaces/{namespace}/notifications/{name}/status bearer          401 400 403
  PATCH  /apis/platform.dev/v1alpha1/namespaces/{namespace}/notifications/{name}/status bearer          401 415 403
  GET    /apis/platform.dev/v1alpha1/namespaces/{namespace}/runtasks                   bearer          401 200 403
  GET    /apis/platform.dev/v1alpha1/runtasks                                          bearer          401 200 403
  POST   /apis/platform.dev/v1alpha1/namespaces/{namespace}/runtasks                   bearer          401 400 403
  GET    /apis/platform.dev/v1alpha1/namespaces/{namespace}/runtasks/{name}            bearer          401 404 403
  PUT    /apis/platform.dev/v1alpha1/namespaces/{namespace}/runtasks/{name}            bearer          401 400 403
  PATCH  /apis/platform.dev/v1alpha1/namespaces/{namespace}/runtasks/{name}            bearer          401 415 403
  DELETE /apis/platform.dev/v1alpha1/namespaces/{namespace}/runtasks/{name}            bearer          401 404 403
  GET    /apis/platform.dev/v1alpha1/namespaces/{namespace}/runtasks/{name}/status     bearer          401 404 403
  PUT    /apis/platform.dev/v1alpha1/namespaces/{namespace}/runtasks/{name}/status     bearer          401 400 403
  PATCH  /apis/platform.dev/v1alpha1/namespaces/{namespace}/runtasks/{name}/status     bearer          401 415 403
  POST   /api/v1alpha1/projects/{project}/workspaces/{workspace}/runs                  bearer          401 400 400
  GET    /api/v1alpha1/projects/{project}/workspaces/{workspace}/runs                  bearer          401 200 200
  GET    /api/v1alpha1/projects/{project}/runs                                         bearer          401 200 200
  GET    /api/v1alpha1/projects/{project}/runs/{run}                                   bearer          401 404 404
  POST   /api/v1alpha1/projects/{project}/runs/{run}/cancel                            bearer          401 404 404
  POST   /api/v1alpha1/projects/{project}/runs/{run}/apply                             bearer          401 404 403
  POST   /api/v1alpha1/projects/{project}/runs/{run}/withdraw                          bearer          401 404 403
  GET    /api/v1alpha1/projects/{project}/notifications/{notification}/deliveries      bearer          401 404 403
  POST   /api/v1alpha1/projects/{project}/notifications/{notification}/deliveries/{delivery}/redeliver bearer          401 404 403
  GET    /api/v1alpha1/projects/{project}/runs/{run}/task-results                      bearer          401 404 404
  POST   /api/v1alpha1/projects/{project}/runs/{run}/override-tasks                    bearer          401 404 403
  GET    /api/v1alpha1/projects/{project}/runs/{run}/plan-json                         bearer          401 404 403
  PATCH  /api/v1alpha1/task-results/{taskResult}/callback                              task-result-token 401 401 401
  GET    /api/v1alpha1/task-results/{taskResult}/run-log                               task-result-token 401 401 401
  GET    /api/v1alpha1/task-results/{taskResult}/plan-json                             task-result-token 401 401 401
  POST   /api/v1alpha1/projects/{project}/rollouts/{rollout}/approve                   bearer          401 400 403
  POST   /api/v1alpha1/projects/{project}/rollouts/{rollout}/withdraw                  bearer          401 400 403
  POST   /api/v1alpha1/projects/{project}/tokens                                       bearer          401 400 403
  GET    /api/v1alpha1/projects/{project}/tokens                                       bearer          401 200 403
  DELETE /api/v1alpha1/projects/{project}/tokens/{name}                                bearer          401 404 403
  GET    /api/v1alpha1/audit/events                                                    bearer          401 200 403
  GET    /internal/runs                                                                bearer          401 200 403
  POST   /internal/runs/claim                                                          bearer          401 204 403
  POST   /internal/runs/{run}/lease                                                    bearer          401 400 403
  POST   /internal/runs/{run}/phase                                                    bearer          401 400 403
  POST   /internal/runs/{run}/logs                                                     bearer          401 400 403
  GET    /internal/runs/{run}/variables                                                bearer          401 400 403
  POST   /internal/runs/{run}/plan-json                                                bearer          401 400 403
  POST   /internal/outbound/sweep                                                      bearer          401 200 403
  GET    /internal/*                                                                   bearer          401 404 403
  POST   /internal/*                                                                   bearer          401 404 403
  GET    /api/v1alpha1/run-logs/{project}/{run}                                        bearer-or-query 401 404 403
  GET    /bridge/*                                                                     none            404 404 404
  POST   /bridge/*                                                                     none            404 404 404
`;

interface ExpectedRoute {
  method: string;
  path: string;
  mode: AccessMode;
  anonymous: number;
  admin: number;
  user: number;
}

const EXPECTED_ROUTES: ExpectedRoute[] = EXPECTED.trim()
  .split('\n')
  .map((line) => {
    const [method, path, mode, anonymous, admin, user] = line.trim().split(/\s+/);
    return {
      method: method!,
      path: path!,
      mode: mode as AccessMode,
      anonymous: +anonymous!,
      admin: +admin!,
      user: +user!,
    };
  });

const concretePath = (path: string) =>
  path.replace(/\{([a-zA-Z]+)\}/g, (_, name: string) => PARAMETER_VALUES[name]!).replace(/\/\*$/, '/some/path');
const named = ({ method, path }: ExpectedRoute) => `${method} ${path}`;
const STREAM = EXPECTED_ROUTES.find((route) => route.mode === 'bearer-or-query')!;

const platform = usePlatform();

async function answer(
  route: ExpectedRoute,
  token?: string,
  query = '',
): Promise<{ status: number; body: { reason?: string } }> {
  const response = await fetch(`${platform().gateway.url}${concretePath(route.path)}${query}`, {
    method: route.method,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const text = await response.text();
  return { status: response.status, body: text.startsWith('{') ? JSON.parse(text) : {} };
}

describe('issue 20: the route table has exactly the routes and access modes written out here', () => {
  it('every route of the table is written out, with its method, path and access mode, and nothing else is', () => {
    const declared = routeTable('platform.dev').map((route) => `${route.method} ${route.path} ${route.auth}`);
    const written = EXPECTED_ROUTES.map(
      ({ method, path, mode }) => `${path.endsWith('/*') ? '*' : method} ${path} ${mode}`,
    );
    expect([...new Set(written)].sort()).toEqual([...declared].sort());
  });
});

describe('Every route not listed as unauthenticated requires a token: 401 without one, on every route of the table', () => {
  it.each(EXPECTED_ROUTES.map((route) => [named(route), route] as const))(
    '%s without a token: the status written out (401 MissingToken with WWW-Authenticate: Bearer unless open)',
    async (_, route) => {
      const response = await fetch(`${platform().gateway.url}${concretePath(route.path)}`, { method: route.method });
      expect(response.status).toBe(route.anonymous);
      expect(route.anonymous === 401).toBe(route.mode !== 'none');
      if (route.anonymous !== 401) return;
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(await response.json()).toEqual({ error: 'a bearer token is required', reason: 'MissingToken' });
    },
  );
});

describe('issue 20: who gets past authorization, route by route: the admin everywhere, a user where its Role reaches', () => {
  it.each(EXPECTED_ROUTES.map((route) => [named(route), route] as const))(
    '%s: the admin and the user each get the status written out',
    async (_, route) => {
      expect((await answer(route, platform().tokens.admin)).status).toBe(route.admin);
      const user = await answer(route, platform().tokens.serviceAccount);
      expect(user.status).toBe(route.user);
      if (user.status === 403 && route.mode !== 'none') expect(user.body.reason).toBe('Forbidden');
    },
  );
});

describe('Fail closed: a path or method no route declares needs a valid token too (401 without, 404 or 405 with)', () => {
  it.each([
    ['GET', '/no/such/route'],
    ['DELETE', '/healthz'],
    ['GET', '/api/v1alpha1/auth/login'],
    ['GET', '/'],
  ])('%s %s without a token → 401 MissingToken', async (method, path) => {
    const response = await fetch(`${platform().gateway.url}${path}`, { method });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(await response.json()).toEqual({ error: 'a bearer token is required', reason: 'MissingToken' });
  });

  it('an unknown route with a valid token is 404, not 401', async () => {
    const response = await fetch(`${platform().gateway.url}/no/such/route`, {
      headers: { authorization: `Bearer ${platform().tokens.admin}` },
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ reason: 'NotFound' });
  });

  it('a malformed Authorization header is 401 MalformedAuthorizationHeader, not 500', async () => {
    for (const header of ['Token abc', 'Bearer', 'Bearer a b']) {
      const response = await fetch(`${platform().gateway.url}/apis/platform.dev/v1alpha1/projects`, {
        headers: { authorization: header },
      });
      expect(response.status, header).toBe(401);
      expect(await response.json()).toMatchObject({ reason: 'MalformedAuthorizationHeader' });
    }
  });

  it('accepts the Bearer scheme in any case, with spaces around the token', async () => {
    const token = platform().tokens.admin;
    for (const header of [`bearer ${token}`, `BEARER  ${token} `]) {
      const response = await fetch(`${platform().gateway.url}/api/v1alpha1/auth/whoami`, {
        headers: { authorization: header },
      });
      expect(await response.json()).toEqual({ type: 'admin', name: 'admin' });
    }
  });
});

describe('access_token is accepted on the run-log stream only: every other route answers 401 to a valid token passed that way', () => {
  it.each(EXPECTED_ROUTES.filter((route) => route.mode === 'bearer').map((route) => [named(route), route] as const))(
    '%s with ?access_token=<valid admin token> → 401 MissingToken',
    async (_, route) => {
      expect(await answer(route, undefined, `?access_token=${platform().tokens.admin}`)).toEqual({
        status: 401,
        body: { error: 'a bearer token is required', reason: 'MissingToken' },
      });
    },
  );

  it('the run-log stream answers a token in access_token exactly as the same token in the header', async () => {
    for (const token of [platform().tokens.admin, platform().tokens.serviceAccount]) {
      const viaHeader = await answer(STREAM, token);
      expect([STREAM.admin, STREAM.user]).toContain(viaHeader.status);
      expect(await answer(STREAM, undefined, `?access_token=${token}`)).toEqual(viaHeader);
    }
  });

  it('the run-log stream refuses an invalid access_token with 401 InvalidToken and an empty one with 401 MissingToken', async () => {
    const invalid = await answer(STREAM, undefined, '?access_token=garbage');
    expect(invalid.status).toBe(401);
    expect(invalid.body).toMatchObject({ reason: 'InvalidToken' });
    const empty = await answer(STREAM, undefined, '?access_token=');
    expect(empty.status).toBe(401);
    expect(empty.body).toMatchObject({ reason: 'MissingToken' });
  });

  it('a header token wins over access_token on the stream (a malformed header is refused, not bypassed by the query)', async () => {
    const response = await fetch(
      `${platform().gateway.url}${concretePath(STREAM.path)}?access_token=${platform().tokens.admin}`,
      { headers: { authorization: 'Token abc' } },
    );
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ reason: 'MalformedAuthorizationHeader' });
  });
});
