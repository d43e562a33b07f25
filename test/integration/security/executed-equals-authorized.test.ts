// Security rule: what is authorized is exactly what is executed. The server writes with its own
// ServiceAccount after authorizing the caller, so every request it sends to the cluster must carry
// the verb, resource, namespace and name the SubjectAccessReview was asked about, or nothing is sent.
// Every route of the route table is driven with hostile path segments, sent as-is (no client-side
// dot-segment resolution), and the cluster's own record of what it received is checked.
import { beforeAll, describe, expect, it } from 'vitest';
import { routeTable, type RouteDefinition } from '../../../shared/contract/routes/route-table.ts';
import type { ClusterTraffic, ReviewedAttributes } from '../../support/cluster-audit.ts';
import { pathWith, requestFor, sendAudited } from '../../support/route-requests.ts';
import {
  API,
  GROUP,
  TEAM_PROJECT,
  expectStatus,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const platform = usePlatform();
const AUDITOR = 'security-auditor';

/** Segments no route parameter may take, as a hostile client sends them (raw, percent-encoded or not). */
const HOSTILE_SEGMENTS = [
  '.',
  '..',
  '%2e',
  '%2E',
  '%2e%2e',
  '.%2e',
  '%2e.',
  '%2f',
  'a%2fb',
  '..%2f..%2fkube-system',
  '%2e%2e%2fsecrets',
  'A',
  'UPPER',
  'a_b',
  'a%20b',
  '%20',
  '%00',
  'a%0d%0aX-Injected:%201',
  'caf%C3%A9',
  '%E2%80%AE',
  '%F0%9F%92%A5',
  '-a',
  'a-',
  '*',
  '%2A',
  '~',
  'a;b',
  '%25',
  '%zz',
  'a'.repeat(254),
];

const RUN_ID = '0190f4c8-0000-7000-8000-000000000000';
const VALID: Record<string, string> = {
  namespace: TEAM_PROJECT,
  project: TEAM_PROJECT,
  name: 'sec-obj',
  workspace: 'sec-ws',
  run: RUN_ID,
  rollout: 'sec-obj',
};

/** The routes with path parameters; catch-alls (`/internal/*`, `/bridge/*`) take any rest of the path by design. */
const ROUTES = routeTable(GROUP).filter((route) => route.path.includes('{'));

let auditorToken = '';

beforeAll(async () => {
  const { cluster } = platform();
  await cluster.createServiceAccount(AUDITOR);
  // Every right on the platform's kinds everywhere, and the controller's paths: every route is authorized, so what
  // stops a hostile request is the route itself, and what reaches the cluster is what the review allowed.
  await cluster.grantClusterRules(AUDITOR, [
    { apiGroups: [GROUP], resources: ['*'], verbs: ['*'] },
    { nonResourceURLs: ['/internal', '/internal/*'], verbs: ['*'] },
  ]);
  auditorToken = await cluster.mintToken(AUDITOR);
  const token = platform().tokens.admin;
  await send(
    platform().gateway.url,
    token,
    'POST',
    `${API}/namespaces/${TEAM_PROJECT}/workspaces`,
    workspaceObject('sec-ws'),
  ).then(expectStatus(201));
});

async function audited(
  route: RouteDefinition,
  values: Record<string, string>,
): Promise<{ status: number; text: string } & ClusterTraffic> {
  return sendAudited(platform(), auditorToken, requestFor(route, values));
}

describe('Names are validated where the route matches: a hostile segment is refused before authorization, and nothing reaches the cluster', () => {
  for (const route of ROUTES) {
    it(`${route.method} ${route.path}`, async () => {
      for (const parameter of Object.keys(route.pathParameters ?? {})) {
        for (const segment of HOSTILE_SEGMENTS) {
          const { status, text, executed, reviews } = await audited(route, { ...VALID, [parameter]: segment });
          const where = `${route.method} ${pathWith(route, { ...VALID, [parameter]: segment }).slice(0, 120)}`;
          expect(status, `${where} → ${text.slice(0, 200)}`).toBe(400);
          const answer = JSON.parse(text) as { reason: string; error: string; kind?: string };
          expect(answer.reason, where).toBe(route.statusErrors ? 'BadRequest' : 'InvalidPathParameter');
          if (route.statusErrors) expect(answer.kind, where).toBe('Status');
          expect(reviews, `${where}: no SubjectAccessReview`).toEqual([]);
          expect(
            executed.map((request) => `${request.method} ${request.rawUrl}`),
            `${where}: nothing sent to the cluster`,
          ).toEqual([]);
        }
      }
    });
  }

  it('label parameters (Projects, namespaces) refuse 64 characters; subdomain names take 253 and refuse 254', async () => {
    const getProject = ROUTES.find((route) => route.operationId === 'getProject')!;
    const getWorkspace = ROUTES.find((route) => route.operationId === 'getWorkspace')!;
    expect((await audited(getProject, { name: 'a'.repeat(64) })).status).toBe(400);
    expect((await audited(getProject, { name: 'a'.repeat(63) })).status).toBe(404);
    expect((await audited(getWorkspace, { namespace: 'a'.repeat(64), name: 'x' })).status).toBe(400);
    expect((await audited(getWorkspace, { namespace: TEAM_PROJECT, name: 'a'.repeat(253) })).status).toBe(404);
    expect((await audited(getWorkspace, { namespace: TEAM_PROJECT, name: 'a'.repeat(254) })).status).toBe(400);
  });
});

/** Whether a request the server sent stays inside what the reviews allowed (see the rules below). */
function outsideAuthorized(
  request: ClusterTraffic['executed'][number],
  reviews: ReviewedAttributes[],
  objectName: string | undefined,
): string | undefined {
  const { verb, namespace, resource, subresource, name, group } = request.info;
  if (verb === 'deletecollection') return 'a collection delete';
  const resourceReviews = reviews.filter((review) => review.resource !== undefined);
  const fits = resourceReviews.some((review) => {
    const sameNamespace = namespace === (review.namespace ?? '');
    if (group === GROUP && resource === review.resource) {
      // The reviewed object itself: the reviewed verb (`approve` is a patch of it), a read of it, or the status
      // the server keeps after a write.
      if (review.name !== undefined)
        return (
          sameNamespace &&
          name === review.name &&
          (verb === review.verb ||
            (review.verb === 'approve' && verb === 'patch') ||
            verb === 'get' ||
            subresource === 'status')
        );
      // A collection review (list, create): the same verb on the collection; after a create, the new object's status.
      return (
        sameNamespace &&
        ((name === '' && verb === review.verb) ||
          (review.verb === 'create' && name === objectName && subresource === 'status'))
      );
    }
    // What a write of a VariableSet or Project keeps beside it: the Secret `variableset-<name>`, the namespace of the Project.
    const reviewedName = review.name ?? objectName;
    if (group === '' && resource === 'secrets')
      return (
        review.resource === 'variablesets' && sameNamespace && (name === '' || name === `variableset-${reviewedName}`)
      );
    if (group === '' && resource === 'namespaces')
      return review.resource === 'projects' && (name === '' || name === reviewedName);
    return false;
  });
  return fits ? undefined : `not covered by ${JSON.stringify(resourceReviews)}`;
}

describe('Executed equals authorized: with valid names, every request the server sends carries what the review was asked about', () => {
  const seen: ReviewedAttributes[] = [];
  for (const route of ROUTES) {
    it(`${route.method} ${route.path}`, async () => {
      const { status, text, executed, reviews } = await audited(route, VALID);
      expect(status, text.slice(0, 200)).toBeLessThan(500);
      // A review answered from the server's cache was asked earlier in this file, with the same attributes.
      seen.push(...reviews);
      if (executed.length > 0)
        expect(seen.length, 'the server reached the cluster without any review ever asked').toBeGreaterThan(0);
      for (const request of executed) {
        const problem = outsideAuthorized(request, reviews.length > 0 ? reviews : seen, VALID.name);
        expect(problem, `${route.method} ${route.path}: sent ${request.method} ${request.rawUrl}`).toBeUndefined();
      }
    });
  }
});
