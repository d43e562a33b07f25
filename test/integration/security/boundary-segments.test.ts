// Issue 38, item 4: two boundary bugs the suite let through. (a) A route's namespace or Project taken
// from the query instead of the path passed every test (403 became 404 or an empty 200); (b) a
// namespace or Project path segment widened from a DNS label to a DNS subdomain (dots, 64 characters
// or more) passed too. Every route of the route table that takes a namespace or a Project is driven
// here, and what reached the cluster (the SubjectAccessReviews asked, the calls executed) is read
// from the emulator's own record. Which parameters name a namespace or a Project is decided here by
// name, not read from the route's schema, so a schema widened by mistake cannot widen the test.
import { describe, beforeAll, expect, it } from 'vitest';
import { pathParameterNames } from '../../../shared/contract/routes/path-parameters.ts';
import { routeTable, type RouteDefinition } from '../../../shared/contract/routes/route-table.ts';
import {
  API,
  GROUP,
  OTHER_PROJECT,
  TEAM_PROJECT,
  bindRole,
  expectStatus,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';
import type { ClusterTraffic } from '../../support/cluster-audit.ts';
import { pathWith, requestFor, sendAudited } from '../../support/route-requests.ts';

const platform = usePlatform();
const TESTER = 'boundary-tester';
const WORKSPACE = 'boundary-ws';
/** A Workspace of the other Project, and a run of it: its id goes in every path, so a run read from the wrong Project shows. */
const OTHER_WORKSPACE = 'boundary-other-ws';
let otherRun = '';

/** Every path parameter name of the table; a new one must be classified here before this file passes. */
const NAMESPACE_OR_PROJECT = new Set(['namespace', 'project']);
const OTHER_PARAMETERS = new Set(['name', 'workspace', 'run', 'rollout', 'notification', 'delivery', 'taskResult']);

/** The parameters of a route that name a namespace or a Project: `{namespace}`, `{project}`, and a Project's own `{name}`. */
function boundaryParameters(route: RouteDefinition): string[] {
  return pathParameterNames(route.path).filter(
    (parameter) => NAMESPACE_OR_PROJECT.has(parameter) || (parameter === 'name' && route.resource?.kind === 'Project'),
  );
}

const ROUTES = routeTable(GROUP).filter((route) => boundaryParameters(route).length > 0);

/** The path's values: every namespace and Project `project`, the other names valid ones. */
function valuesFor(route: RouteDefinition, project: string): Record<string, string> {
  const values: Record<string, string> = {
    name: 'boundary-obj',
    workspace: WORKSPACE,
    run: otherRun,
    rollout: 'boundary-obj',
    notification: 'boundary-obj',
    delivery: '1',
  };
  for (const parameter of boundaryParameters(route)) values[parameter] = project;
  return values;
}

/** A query naming `project` under every parameter name; a write of a Kubernetes-style route is a dry run (nothing changes). */
function queryNaming(route: RouteDefinition, project: string): string {
  const query = new URLSearchParams({
    namespace: project,
    project,
    name: project,
    workspace: project,
    rollout: project,
    notification: project,
    delivery: project,
  });
  if (route.statusErrors && route.method !== 'GET') query.set('dryRun', 'All');
  return query.toString();
}

/**
 * What the cluster was asked about, or told to act on, beyond the path: anything named `project` (the
 * other one), a review of a namespace or name the path does not hold (but the Workspace of the run the
 * path names, when that run is in the path's Project), a call in another namespace.
 */
function strayFrom(traffic: ClusterTraffic, values: Record<string, string>, project: string): string[] {
  const pathNames = new Set(Object.values(values));
  if (values.project === OTHER_PROJECT || values.namespace === OTHER_PROJECT) pathNames.add(OTHER_WORKSPACE);
  const stray = (name: string | undefined) => name !== undefined && name !== '' && !pathNames.has(name);
  return [
    ...traffic.reviews
      .filter(
        (review) =>
          review.namespace === project || review.name === project || stray(review.namespace) || stray(review.name),
      )
      .map((review) => `reviewed ${JSON.stringify(review)}`),
    ...traffic.executed
      .filter(
        (request) =>
          request.info.namespace === project || request.info.name === project || stray(request.info.namespace),
      )
      .map((request) => `executed ${request.method} ${request.rawUrl}`),
  ];
}

let token = '';

beforeAll(async () => {
  const { cluster, gateway, tokens } = platform();
  await cluster.createServiceAccount(TESTER);
  // Everything in its own Project, and that Project and its namespace by name; nothing in the other.
  await bindRole(cluster, TEAM_PROJECT, TESTER, [{ apiGroups: [GROUP], resources: ['*'], verbs: ['*'] }], TESTER);
  await cluster.grantClusterRules(TESTER, [
    { apiGroups: [GROUP], resources: ['projects', 'projects/status'], resourceNames: [TEAM_PROJECT], verbs: ['*'] },
    { apiGroups: [''], resources: ['namespaces'], resourceNames: [TEAM_PROJECT], verbs: ['get'] },
  ]);
  token = await cluster.mintToken(TESTER);
  const asAdmin = (method: string, path: string, body: unknown) =>
    send(gateway.url, tokens.admin, method, path, body).then(expectStatus(201));
  await asAdmin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject(WORKSPACE));
  await asAdmin('POST', `${API}/namespaces/${OTHER_PROJECT}/workspaces`, workspaceObject(OTHER_WORKSPACE));
  otherRun = (
    await asAdmin('POST', `/api/v1alpha1/projects/${OTHER_PROJECT}/workspaces/${OTHER_WORKSPACE}/runs`, {
      type: 'plan',
    })
  ).id;
});

describe('issue 38 item 4: the route table names its parameters as this file classifies them', () => {
  it('every path parameter is a namespace or Project, or one of the other names', () => {
    const unclassified = routeTable(GROUP).flatMap((route) =>
      pathParameterNames(route.path)
        .filter((parameter) => !NAMESPACE_OR_PROJECT.has(parameter) && !OTHER_PARAMETERS.has(parameter))
        .map((parameter) => `${route.path}: {${parameter}}`),
    );
    expect(unclassified).toEqual([]);
    expect(ROUTES.length).toBeGreaterThan(20);
  });
});

describe("issue 38 item 4 (a): the namespace and the Project are the path's, whatever the query names", () => {
  for (const route of ROUTES) {
    it(`${route.method} ${route.path}`, async () => {
      // The path names the caller's own Project, the query the other: authorized and executed in its own.
      const own = await sendAudited(
        platform(),
        token,
        requestFor(route, valuesFor(route, TEAM_PROJECT), queryNaming(route, OTHER_PROJECT)),
      );
      const ownWhere = `${route.method} ${pathWith(route, valuesFor(route, TEAM_PROJECT))} → ${own.status} ${own.text.slice(0, 160)}`;
      expect(own.status, ownWhere).not.toBe(403);
      expect(own.status, ownWhere).toBeLessThan(500);
      expect(strayFrom(own, valuesFor(route, TEAM_PROJECT), OTHER_PROJECT), ownWhere).toEqual([]);
      // The path names the other Project, the query the caller's own: refused, nothing executed.
      const other = await sendAudited(
        platform(),
        token,
        requestFor(route, valuesFor(route, OTHER_PROJECT), queryNaming(route, TEAM_PROJECT)),
      );
      const otherWhere = `${route.method} ${pathWith(route, valuesFor(route, OTHER_PROJECT))} → ${other.status} ${other.text.slice(0, 160)}`;
      expect(other.status, otherWhere).toBe(403);
      expect(
        other.executed.map((request) => `${request.method} ${request.rawUrl}`),
        otherWhere,
      ).toEqual([]);
      expect(strayFrom(other, valuesFor(route, OTHER_PROJECT), TEAM_PROJECT), otherWhere).toEqual([]);
    });
  }
});

describe('issue 38 item 4 (b): a namespace or Project segment is a DNS label: dots and 64 characters are 400 on every route', () => {
  const NOT_LABELS = ['a.b', `${TEAM_PROJECT}.example.com`, 'a'.repeat(64), `${'b'.repeat(60)}.com`];
  for (const route of ROUTES) {
    it(`${route.method} ${route.path}`, async () => {
      for (const parameter of boundaryParameters(route)) {
        for (const segment of NOT_LABELS) {
          const values = { ...valuesFor(route, TEAM_PROJECT), [parameter]: segment };
          const answer = await sendAudited(platform(), token, requestFor(route, values));
          const where = `${route.method} ${pathWith(route, values)} → ${answer.text.slice(0, 160)}`;
          expect(answer.status, where).toBe(400);
          expect(answer.reviews, `${where}: no SubjectAccessReview`).toEqual([]);
          expect(answer.executed, `${where}: nothing executed`).toEqual([]);
        }
      }
      // A label of 63 characters is a name like any other: past validation (403: not the caller's Project).
      const longest = { ...valuesFor(route, TEAM_PROJECT), [boundaryParameters(route)[0]!]: 'c'.repeat(63) };
      expect((await sendAudited(platform(), token, requestFor(route, longest))).status).toBe(403);
    });
  }
});
