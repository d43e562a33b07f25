// "Validate names where the route matches" on the route table itself, without a server (issue 15):
// every path parameter of every route refuses dot segments, each with the exact problem, and the
// kinds' names follow their own rule (a Project is a DNS label, other kinds DNS subdomains). The
// HTTP side, with the cluster's record of what reached it, is test/integration/security/executed-equals-authorized.test.ts.
import { describe, expect, it } from 'vitest';
import { RouteMatcher } from '../../../shared/contract/routes/route-matcher.ts';
import { routeTable, type RouteDefinition } from '../../../shared/contract/routes/route-table.ts';

const ROUTES = routeTable('platform.dev');
const matcher = new RouteMatcher(ROUTES);
const RUN_ID = '0190f4c8-0000-7000-8000-000000000001';
const VALID: Record<string, string> = {
  namespace: 'team-a',
  project: 'team-a',
  name: 'obj',
  workspace: 'ws',
  run: RUN_ID,
  notification: 'alerts',
  delivery: '1',
  taskResult: '0190f4c8-0000-7000-8000-000000000002',
};
const WITH_PARAMETERS = ROUTES.filter((route) => route.path.includes('{'));

const pathOf = (route: RouteDefinition, values: Record<string, string>) =>
  route.path.replace(/\{([a-zA-Z]+)\}/g, (_, name: string) => values[name]!);
const lookup = (route: RouteDefinition, values: Record<string, string>) =>
  matcher.lookup(route.method, pathOf(route, values));

describe('Names are validated where the route matches: a dot segment in any path parameter of any route is refused', () => {
  it.each(WITH_PARAMETERS.map((route) => [`${route.method} ${route.path}`, route] as const))('%s', (_name, route) => {
    expect(lookup(route, VALID)).toMatchObject({ kind: 'found', match: { route: { operationId: route.operationId } } });
    for (const parameter of Object.keys(route.pathParameters ?? {})) {
      for (const [segment, problem] of [
        ['.', "may not be '.'"],
        ['..', "may not be '..'"],
        ['%2e', "may not be '.'"],
        ['%2E%2e', "may not be '..'"],
      ]) {
        const answer = lookup(route, { ...VALID, [parameter]: segment! });
        expect(answer, `${parameter}=${segment}`).toEqual({
          kind: 'invalid-parameter',
          route: expect.objectContaining({ operationId: route.operationId }),
          problem: `${parameter} "${decodeURIComponent(segment!)}" is invalid: ${problem}`,
        });
      }
    }
  });

  it('every route with a path parameter declares a schema for each of them', () => {
    for (const route of WITH_PARAMETERS)
      expect(Object.keys(route.pathParameters ?? {}).sort(), route.path).toEqual(
        [...route.path.matchAll(/\{([a-zA-Z]+)\}/g)].map((match) => match[1]).sort(),
      );
  });
});

describe('A Project name is a DNS label (at most 63 characters); the names of other kinds are DNS subdomains (at most 253)', () => {
  const byId = (operationId: string) => ROUTES.find((route) => route.operationId === operationId)!;

  it('refuses a 64-character Project name, takes 63', () => {
    expect(lookup(byId('getProject'), { name: 'a'.repeat(64) })).toMatchObject({
      kind: 'invalid-parameter',
      problem: `name "${'a'.repeat(64)}" is invalid: must be no more than 63 characters`,
    });
    expect(lookup(byId('getProject'), { name: 'a'.repeat(63) }).kind).toBe('found');
  });

  it('takes a 253-character Workspace name, refuses 254', () => {
    expect(lookup(byId('getWorkspace'), { namespace: 'team-a', name: 'a'.repeat(253) }).kind).toBe('found');
    expect(lookup(byId('getWorkspace'), { namespace: 'team-a', name: 'a'.repeat(254) }).kind).toBe('invalid-parameter');
  });
});

describe('Resource routes answer in the Kubernetes Status shape; the platform\'s own routes in {"error","reason"}', () => {
  it('statusErrors is set on exactly the routes under /apis/<group>/ and /api/v1/ (Kubernetes API groups)', () => {
    for (const route of ROUTES) {
      const resource =
        route.path.startsWith('/apis/platform.dev/v1alpha1/') ||
        route.path.startsWith('/apis/authorization.k8s.io/v1/') ||
        route.path.startsWith('/api/v1/namespaces/');
      expect(route.statusErrors === true, `${route.method} ${route.path}`).toBe(resource);
    }
  });
});

describe('The matcher takes routes given without path parameter schemas (routeTable always gives them)', () => {
  it('matches them, with no schema to check a parameter against', () => {
    const bare = new RouteMatcher([
      {
        method: 'GET',
        path: '/things/{name}',
        target: 'resources',
        auth: 'bearer',
        operationId: 'getThing',
        summary: 'A thing.',
      },
    ]);
    expect(bare.lookup('GET', '/things/..')).toEqual({
      kind: 'found',
      match: { route: expect.objectContaining({ operationId: 'getThing' }), params: { name: '..' } },
    });
  });
});
