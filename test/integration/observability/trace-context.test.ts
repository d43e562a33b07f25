// Issue 23, item 3, with tracing OFF in this process (no OTLP endpoint): the request log still
// names the caller's trace from a valid incoming `traceparent`, no tracing filter is installed,
// and the names a span would take are bounded (never an object's name or a raw path).
import { describe, expect, it } from 'vitest';
import { jsonResponse } from '../../../shared/base/http/api-request.ts';
import type { FilteredRequest } from '../../../shared/server/runtime/filters/filter-chain.ts';
import { withAccessLog } from '../../../shared/server/runtime/filters/access-log.ts';
import { withTracing } from '../../../shared/server/runtime/filters/tracing.ts';
import { kubernetesRequestInfo } from '../../../shared/base/kubernetes/kubernetes-call-span.ts';
import { traceIdOfTraceParent } from '../../../shared/base/tracing/trace-parent.ts';
import { isTracingOn } from '../../../shared/base/tracing/tracing.ts';
import { capturingLogger } from '../../support/function-servers.ts';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const VALID = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

function request(headers: Record<string, string>): FilteredRequest {
  return {
    method: 'GET',
    path: '/api/v1alpha1/auth/whoami',
    query: new URLSearchParams(),
    headers,
    body: new Uint8Array(0),
    remoteAddress: '127.0.0.1',
  };
}

/** The `request` line the access log writes for one request with these headers. */
function loggedLine(headers: Record<string, string>): Record<string, unknown> {
  const logger = capturingLogger();
  withAccessLog(logger)(request(headers), () => jsonResponse(200, {}));
  return JSON.parse(logger.lines.at(-1)!) as Record<string, unknown>;
}

describe('issue 23: with tracing off, the request log names the trace a valid incoming traceparent carries', () => {
  it('tracing is off without an OTLP endpoint, and no tracing filter joins the chain', () => {
    expect(isTracingOn()).toBe(false);
    expect(withTracing('resources')).toBeUndefined();
  });

  it('trace_id is the traceparent trace id; a line without one has no trace_id', () => {
    expect(loggedLine({ traceparent: VALID }).trace_id).toBe(TRACE_ID);
    expect(loggedLine({})).not.toHaveProperty('trace_id');
  });

  it.each([
    ['an all-zero trace id', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`],
    ['an all-zero parent id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${TRACE_ID}-00f067aa0ba902b7-01`],
    ['upper-case hex', `00-${TRACE_ID.toUpperCase()}-00f067aa0ba902b7-01`],
    ['a short trace id', `00-${TRACE_ID.slice(1)}-00f067aa0ba902b7-01`],
    ['version 00 with a fifth field', `${VALID}-extra`],
    ['text', 'not a traceparent'],
  ])('an invalid traceparent (%s) names no trace', (_case, header) => {
    expect(traceIdOfTraceParent(header)).toBeUndefined();
    expect(loggedLine({ traceparent: header })).not.toHaveProperty('trace_id');
  });

  it('a later version may add fields after the four it shares with 00', () => {
    expect(traceIdOfTraceParent(`01-${TRACE_ID}-00f067aa0ba902b7-01-more`)).toBe(TRACE_ID);
  });
});

describe("issue 23: a Kubernetes call's span is named `<verb> <resource>`, never by the object's namespace or name", () => {
  it.each([
    ['GET', '/apis/platform.dev/v1alpha1/namespaces/team-a/workspaces', '', 'list', 'workspaces'],
    ['GET', '/apis/platform.dev/v1alpha1/namespaces/team-a/workspaces/web', '', 'get', 'workspaces'],
    ['GET', '/apis/platform.dev/v1alpha1/namespaces/team-a/workspaces', 'watch=true', 'watch', 'workspaces'],
    ['PUT', '/apis/platform.dev/v1alpha1/namespaces/team-a/workspaces/web/status', '', 'update', 'workspaces/status'],
    ['PATCH', '/apis/platform.dev/v1alpha1/projects/team-a', '', 'patch', 'projects'],
    ['POST', '/api/v1/namespaces', '', 'create', 'namespaces'],
    ['GET', '/api/v1/namespaces/team-a', '', 'get', 'namespaces'],
    ['DELETE', '/api/v1/namespaces/team-a/secrets/token', '', 'delete', 'secrets'],
    ['DELETE', '/api/v1/namespaces/team-a/secrets', '', 'deletecollection', 'secrets'],
    ['GET', '/apis', '', 'get', 'non-resource'],
  ])('%s %s?%s is %s %s', (method, path, query, verb, resource) => {
    expect(kubernetesRequestInfo({ method, path, query: new URLSearchParams(query) })).toEqual({ verb, resource });
  });
});
