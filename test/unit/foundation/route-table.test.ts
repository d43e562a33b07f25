import { describe, expect, it } from 'vitest';
import { routeTable, FUNCTION_NAMES } from '../../../shared/contract/routes/route-table.ts';
import { gatewayRules, resolveGatewayTarget } from '../../../shared/contract/routes/gateway-routing.ts';
import { buildOpenApiDocument } from '../../../shared/contract/openapi/openapi-document.ts';
import { compilePathPattern } from '../../../shared/contract/routes/path-pattern.ts';
import { platformKindDescriptions } from '../../../shared/contract/kinds/platform-kind-descriptions.ts';

const routes = routeTable('platform.dev');
const kinds = await platformKindDescriptions('platform.dev');
const rules = gatewayRules(routes);

describe('The route table is the single source: each route has one owner and the gateway agrees', () => {
  it('every function owns at least one route', () => {
    for (const name of FUNCTION_NAMES) expect(routes.some((route) => route.target === name)).toBe(true);
  });

  it('operationIds are unique', () => {
    const ids = routes.map((route) => route.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(
    routes.filter((route) => route.target !== 'every-function').map((route) => [route.path, route.target] as const),
  )('the gateway sends %s to %s', (path, target) => {
    const concrete = path.replace(/\{[a-zA-Z]+\}/g, 'x').replace(/\/\*$/, '/a/b');
    expect(resolveGatewayTarget(rules, concrete)).toBe(target);
  });

  it('paths no route claims go to a function with the verifier (so they get 401, not a gateway 404)', () => {
    expect(resolveGatewayTarget(rules, '/nothing/here')).toBe('resources');
  });

  it('the probes every function answers (/healthz, /readyz) go to public-config at the gateway', () => {
    expect(resolveGatewayTarget(rules, '/healthz')).toBe('public-config');
    expect(resolveGatewayTarget(rules, '/readyz')).toBe('public-config');
  });

  it('the gateway routes the path alone: a query string changes no target (issue 20)', () => {
    expect(resolveGatewayTarget(rules, '/api/v1alpha1/auth/login?x=1')).toBe('login');
    expect(resolveGatewayTarget(rules, '/internal?a=/b')).toBe('internal');
    expect(resolveGatewayTarget(rules, '/api/v1alpha1/system/public-config?')).toBe('public-config');
  });

  it('PathPrefix matches whole path elements only', () => {
    expect(resolveGatewayTarget(rules, '/internalx')).toBe('resources');
    expect(resolveGatewayTarget(rules, '/internal')).toBe('internal');
  });

  it('refuses a table that two targets would claim at the gateway', () => {
    const ambiguous = [
      ...routes,
      { ...routes.find((route) => route.target === 'internal')!, target: 'login' as const, operationId: 'dup' },
    ];
    expect(() => gatewayRules(ambiguous)).toThrow(/ambiguous/);
  });
});

describe('Path patterns', () => {
  it('captures segments and decodes them', () => {
    expect(compilePathPattern('/a/{project}/runs/{run}').match('/a/my%20p/runs/7')).toEqual({
      project: 'my p',
      run: '7',
    });
  });
  it('does not let a segment parameter span slashes', () => {
    expect(compilePathPattern('/a/{x}').match('/a/b/c')).toBeNull();
  });
  it('matches the rest of the path with a trailing /*', () => {
    expect(compilePathPattern('/internal/*').match('/internal/a/b')).toEqual({ '*': 'a/b' });
    expect(compilePathPattern('/internal/*').match('/internal')).toEqual({ '*': '' });
  });
});

describe('/openapi.json: OpenAPI 3.1 of every route', () => {
  const document = buildOpenApiDocument(routes, 'http://localhost:8080', kinds, 'platform.dev') as {
    openapi: string;
    paths: Record<string, Record<string, { security?: unknown[] }>>;
  };

  it('is OpenAPI 3.1', () => {
    expect(document.openapi).toBe('3.1.0');
  });

  it('documents every route of the table', () => {
    for (const route of routes) {
      const path = route.path.replace(/\/\*$/, '/{path}');
      const methods = route.method === '*' ? ['get', 'post'] : [route.method.toLowerCase()];
      for (const method of methods)
        expect(document.paths[path]?.[method], `${route.method} ${route.path}`).toBeDefined();
    }
  });

  it('marks open routes with an empty security requirement and no others', () => {
    for (const route of routes) {
      const path = route.path.replace(/\/\*$/, '/{path}');
      const operation = Object.values(document.paths[path]!)[0]!;
      expect(operation.security?.length === 0, route.path).toBe(route.auth === 'none');
    }
  });
});

describe('/openapi.json: each route documents only the answers it can give (issue 9)', () => {
  const document = buildOpenApiDocument(routes, 'http://localhost:8080', kinds, 'platform.dev') as {
    paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
  };
  const answers = (route: (typeof routes)[number]) =>
    document.paths[route.path.replace(/\/\*$/, '/{path}')]![route.method === '*' ? 'get' : route.method.toLowerCase()]!
      .responses;

  it('a route that takes no body documents no body refusal (413, 415, malformed JSON)', () => {
    for (const route of routes.filter(
      (candidate) => !candidate.requestSchema && candidate.resource?.operation !== 'delete',
    )) {
      const documented = answers(route);
      expect(Object.keys(documented), route.operationId).not.toContain('413');
      expect(Object.keys(documented), route.operationId).not.toContain('415');
      expect(documented['400']?.description ?? '', route.operationId).not.toMatch(/JSON/);
    }
  });

  it("a route without path parameters, a body or a declared 400 documents no 400 but a malformed `timeout`'s (issue 38)", () => {
    for (const route of routes.filter(
      (candidate) => !candidate.path.includes('{') && !candidate.requestSchema && !candidate.resource,
    )) {
      const declared = route.operationId === 'login' || route.operationId.startsWith('list');
      if (declared) continue;
      const documented = answers(route)['400']?.description;
      // The bridge is another server's: its `timeout` is its own.
      if (route.target === 'bridge') expect(documented, route.operationId).toBeUndefined();
      else expect(documented, route.operationId).toMatch(/^A `timeout` that is not a Go duration[^.]*\.$/);
    }
  });

  it('403 only where the caller is authorized: whoAmI needs nothing but a valid token, getWorkspace authorizes', () => {
    const byId = (operationId: string) => routes.find((route) => route.operationId === operationId)!;
    expect(Object.keys(answers(byId('whoAmI')))).not.toContain('403');
    expect(Object.keys(answers(byId('whoAmI')))).toContain('401');
    expect(Object.keys(answers(byId('getWorkspace')))).toContain('403');
  });

  it("every list of a kind, in one namespace or in all, takes the list query and answers the kind's list", () => {
    const lists = routes.filter((route) => route.resource?.operation === 'list');
    // Namespaced kinds (Workspaces, Rollouts, VariableSets, Notifications, RunTasks) have two lists (one namespace, every namespace); Projects one.
    expect(lists.length).toBe(11);
    const [first] = lists;
    for (const list of lists) {
      expect(list.querySchema, list.operationId).toBe(first!.querySchema);
      expect(list.responseSchema, list.operationId).toMatchObject({
        properties: { kind: { const: `${list.resource!.kind}List` } },
      });
    }
  });

  it('the internal catch-all documents no success: once authorized it answers only 404', () => {
    const catchAll = routes.find((route) => route.operationId === 'internal')!;
    const statuses = Object.keys(answers(catchAll));
    expect(statuses.filter((status) => status.startsWith('2'))).toEqual([]);
    expect(statuses).toContain('404');
  });

  it('the resource kinds are components from their CRDs, and their routes refer to them', () => {
    const full = buildOpenApiDocument(routes, 'http://localhost:8080', kinds, 'platform.dev') as {
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>;
    };
    for (const { kind, schema } of kinds)
      expect(full.components.schemas[kind.kind]!.properties.spec, kind.kind).toEqual(
        (schema.properties as Record<string, unknown>).spec,
      );
    expect(
      full.paths['/apis/platform.dev/v1alpha1/namespaces/{namespace}/workspaces']!.post!.requestBody!.content[
        'application/json'
      ]!.schema,
    ).toEqual({ $ref: '#/components/schemas/Workspace' });
  });
});
