// Requests for any route of the route table, with chosen path parameters: what the security tests
// that walk every route send (executed-equals-authorized, boundary-segments).
import type { RouteDefinition } from '../../shared/contract/routes/route-table.ts';
import { GROUP, type Platform } from './platform-fixture.ts';
import { rawRequest } from './raw-http.ts';
import { clusterAudit, type ClusterTraffic } from './cluster-audit.ts';

/** A request to send as is (rawRequest): method, path (with any query), headers and body. */
export interface RouteRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** The route's path with each `{parameter}` replaced by its value (as given: raw or percent-encoded). */
export function pathWith(route: RouteDefinition, values: Record<string, string>): string {
  return route.path.replace(/\{([a-zA-Z]+)\}/g, (_, name: string) => values[name]!);
}

const KINDS: Record<string, string> = {
  projects: 'Project',
  workspaces: 'Workspace',
  rollouts: 'Rollout',
  variablesets: 'VariableSet',
};
const BODY_OF: Record<string, unknown> = {
  startRun: { type: 'plan' },
  approveRollout: { stage: 'x' },
  withdrawRolloutApproval: { stage: 'x' },
  setRunPhase: { phase: 'Running' },
  appendRunLogs: { lines: ['x'] },
};

/** A well-formed request for the route: a kind's object for its writes (named `values.name`), the body a platform route reads. */
export function requestFor(route: RouteDefinition, values: Record<string, string>, query = ''): RouteRequest {
  const path = `${pathWith(route, values)}${query ? `?${query}` : ''}`;
  const kind = /\/v1alpha1\/(?:namespaces\/[^/]+\/)?([a-z]+)/.exec(
    route.path.startsWith('/apis/') ? route.path : '',
  )?.[1];
  const object = kind
    ? { apiVersion: `${GROUP}/v1alpha1`, kind: KINDS[kind], metadata: { name: values.name ?? 'sec-obj' }, spec: {} }
    : undefined;
  const bodies: Record<string, unknown> = { POST: object ?? BODY_OF[route.operationId], PUT: object, PATCH: {} };
  const body = bodies[route.method];
  const contentType = route.method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
  return {
    method: route.method,
    path,
    headers: body === undefined ? {} : { 'content-type': contentType },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  };
}

/** Sends the request as is with a bearer token, and answers with what reached the cluster meanwhile (cluster-audit.ts). */
export async function sendAudited(
  platform: Pick<Platform, 'gateway' | 'cluster'>,
  token: string,
  { method, path, headers, body }: RouteRequest,
): Promise<{ status: number; text: string } & ClusterTraffic> {
  const { result, executed, reviews } = await clusterAudit(platform.cluster.emulator).during(() =>
    rawRequest(platform.gateway.url, method, path, { authorization: `Bearer ${token}`, ...headers }, body),
  );
  return { status: result.status, text: result.text, executed, reviews };
}
