// Issue 23, item 3 and its Show line, "traces across every hop": with an OTLP endpoint configured,
// one request through the gateway is one trace (the gateway's span, the function's, its
// SubjectAccessReview and its database query, each the child of the one before), the client's
// `traceparent` is honoured, no span holds a token, and the request log names the trace.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { flushTraces } from '../../../shared/base/tracing/start-tracing.ts';
import { inSpan, SpanKind } from '../../../shared/base/tracing/tracing.ts';
import { KubernetesRestClient } from '../../../shared/base/kubernetes/kubernetes-rest-client.ts';
import { createBridgeProxy } from '../../../infra/development/gateway/bridge-proxy.ts';
import { loadSettings } from '../../../shared/base/config/settings.ts';
import { createFunctionGateway } from '../../../infra/development/gateway/function-gateway.ts';
import { UpstreamPool } from '../../../infra/development/gateway/upstream-pool.ts';
import { gatewayRules } from '../../../shared/contract/routes/gateway-routing.ts';
import { FUNCTION_NAMES, routeTable } from '../../../shared/contract/routes/route-table.ts';
import { listen } from '../../../knative/node-http/limited-http-server.ts';
import { capturingLogger, silentLogger } from '../../support/function-servers.ts';
import { SPAN_KIND, startOtlpReceiver, type ReceivedSpan } from '../../support/otlp-receiver.ts';
import { API, expectStatus, send, TEAM_PROJECT, usePlatform, workspaceObject } from '../../support/platform-fixture.ts';
import { emulatorKubeConfig } from '../../../infra/kube-emulator/kubeconfig.ts';

const receiver = await startOtlpReceiver();
// Registered first, so it runs after the platform's (vitest runs afterAll hooks last-registered first): the gateway flushes its spans on close.
afterAll(() => receiver.close());
const log = capturingLogger();
const platform = usePlatform({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, { logger: log });

/** A client's own trace context: a fresh trace id and the id of the client's span. */
function clientTraceParent(): { traceId: string; parentId: string; header: string } {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { traceId, parentId, header: `00-${traceId}-${parentId}-01` };
}

/** The spans of one trace once exported: flushed by this process (the local gateway and its functions run in it). */
async function exportedTrace(traceId: string): Promise<ReceivedSpan[]> {
  await flushTraces();
  return receiver.spans.filter((span) => span.traceId === traceId);
}

/** The span's ancestors, nearest first, up to the root of what was exported. */
function ancestorsOf(span: ReceivedSpan, trace: ReceivedSpan[]): ReceivedSpan[] {
  const ancestors: ReceivedSpan[] = [];
  for (let parent = trace.find((s) => s.spanId === span.parentSpanId); parent; ) {
    ancestors.push(parent);
    parent = trace.find((s) => s.spanId === parent!.parentSpanId);
  }
  return ancestors;
}

describe('issue 23: one request through the gateway is one trace, every hop parented', () => {
  it("a ServiceAccount listing runs: gateway → function → SubjectAccessReview and database spans, under the client's traceparent", async () => {
    const { gateway, tokens } = platform();
    await send(
      gateway.url,
      tokens.admin,
      'POST',
      `${API}/namespaces/${TEAM_PROJECT}/workspaces`,
      workspaceObject('traced'),
    ).then(expectStatus(201));
    const client = clientTraceParent();
    const response = await fetch(`${gateway.url}/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/traced/runs`, {
      headers: { authorization: `Bearer ${tokens.serviceAccount}`, traceparent: client.header },
    });
    expect(response.status).toBe(200);

    const trace = await exportedTrace(client.traceId);
    // The gateway's span is the child of the client's; the function's SERVER span the gateway's child.
    const gatewaySpan = trace.find((span) => span.parentSpanId === client.parentId);
    expect(gatewaySpan).toMatchObject({
      name: 'GET resources',
      kind: SPAN_KIND.server,
      service: 'platform-api-local-gateway',
      attributes: {
        'http.request.method': 'GET',
        'http.response.status_code': 200,
        'platform_api.function': 'resources',
      },
    });
    const functionSpan = trace.find((span) => span.parentSpanId === gatewaySpan!.spanId);
    expect(functionSpan).toMatchObject({
      name: 'GET /api/v1alpha1/projects/{project}/workspaces/{workspace}/runs',
      kind: SPAN_KIND.server,
      attributes: {
        'http.request.method': 'GET',
        'http.route': '/api/v1alpha1/projects/{project}/workspaces/{workspace}/runs',
        'http.response.status_code': 200,
        'url.scheme': 'http',
        'platform_api.principal.type': 'serviceaccount',
        'platform_api.function': 'resources',
      },
    });
    const review = trace.find((span) => span.name === 'SubjectAccessReview');
    expect(review).toMatchObject({
      kind: SPAN_KIND.client,
      attributes: {
        'platform_api.authorization.verb': 'list',
        'platform_api.authorization.resource': 'workspaces/runs',
        'platform_api.authorization.allowed': true,
        'server.address': '127.0.0.1',
      },
    });
    const query = trace.find((span) => span.attributes['db.system.name'] === 'postgresql');
    expect(query).toMatchObject({ kind: SPAN_KIND.client, attributes: { 'db.operation.name': expect.any(String) } });
    expect(query!.name).toBe(query!.attributes['db.operation.name']);
    for (const child of [review!, query!]) expect(ancestorsOf(child, trace)).toContain(functionSpan);
    // Every span of the trace descends from the client's span: nothing was cut off into a trace of its own.
    for (const span of trace)
      expect(ancestorsOf(span, trace).at(-1)?.parentSpanId ?? span.parentSpanId).toBe(client.parentId);
  });

  it('no exported span holds a token, and the request log line names the trace (trace_id)', async () => {
    const { gateway, tokens } = platform();
    const client = clientTraceParent();
    const response = await fetch(`${gateway.url}/api/v1alpha1/projects/${TEAM_PROJECT}/runs`, {
      headers: { authorization: `Bearer ${tokens.oidcUser}`, traceparent: client.header },
    });
    expect(response.status).toBe(200);
    const trace = await exportedTrace(client.traceId);
    expect(
      trace.find((span) => span.kind === SPAN_KIND.server && span.attributes['http.route'])?.attributes,
    ).toMatchObject({ 'platform_api.principal.type': 'oidc' });
    const exported = receiver.bodies.join('\n');
    for (const token of Object.values(tokens)) expect(exported).not.toContain(token);
    // Nor the signature alone, the part of a JWT that makes it a credential.
    for (const token of Object.values(tokens)) expect(exported).not.toContain(token.split('.')[2]);
    const line = log.lines
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .find((record) => record.message === 'request' && record.trace_id === client.traceId);
    expect(line).toMatchObject({ method: 'GET', status: 200, path: `/api/v1alpha1/projects/${TEAM_PROJECT}/runs` });
  });

  it('a request without a traceparent starts a trace at the gateway (its span a root)', async () => {
    const { gateway, tokens } = platform();
    const before = receiver.spans.length;
    expect(
      (await fetch(`${gateway.url}/api/v1alpha1/auth/whoami`, { headers: { authorization: `Bearer ${tokens.admin}` } }))
        .status,
    ).toBe(200);
    await flushTraces();
    const root = receiver.spans
      .slice(before)
      .find((span) => span.parentSpanId === '' && span.service === 'platform-api-local-gateway');
    expect(root).toMatchObject({ kind: SPAN_KIND.server, attributes: { 'http.response.status_code': 200 } });
    const served = receiver.spans.find((span) => span.parentSpanId === root!.spanId);
    expect(served).toMatchObject({ traceId: root!.traceId, attributes: { 'platform_api.principal.type': 'admin' } });
  });
});

describe('issue 23: probes are not traced', () => {
  it('/healthz and /readyz through the gateway make no span, even with a traceparent', async () => {
    const { gateway } = platform();
    const client = clientTraceParent();
    for (const probe of ['/healthz', '/readyz'])
      expect((await fetch(`${gateway.url}${probe}`, { headers: { traceparent: client.header } })).status).toBe(200);
    expect(await exportedTrace(client.traceId)).toEqual([]);
  });
});

describe('issue 23: the function propagates the trace to the cluster (the REST client)', () => {
  it('a cluster call is a CLIENT span `<verb> <resource>` whose traceparent the cluster receives', async () => {
    platform(); // tracing is on once the platform has started in this process
    const received: Array<string | undefined> = [];
    const cluster = createServer((request, response) => {
      received.push(String(request.headers.traceparent));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"kind":"WorkspaceList","items":[]}');
    });
    await new Promise<void>((resolve) => cluster.listen(0, '127.0.0.1', resolve));
    try {
      const kubeConfig = emulatorKubeConfig(
        { server: `http://127.0.0.1:${(cluster.address() as AddressInfo).port}` },
        'cluster-credential',
      );
      const client = new KubernetesRestClient(kubeConfig, silentLogger);
      const parentTraceId = await inSpan(
        () => ({ name: 'a handler', kind: SpanKind.INTERNAL }),
        async (span) => {
          await client.call({
            method: 'GET',
            path: `/apis/platform.dev/v1alpha1/namespaces/${TEAM_PROJECT}/workspaces`,
          });
          return span!.spanContext().traceId;
        },
      );
      const trace = await exportedTrace(parentTraceId);
      const call = trace.find((span) => span.name === 'list workspaces');
      expect(call).toMatchObject({
        kind: SPAN_KIND.client,
        attributes: {
          'http.request.method': 'GET',
          'http.response.status_code': 200,
          'server.address': '127.0.0.1',
          'platform_api.kubernetes.verb': 'list',
          'platform_api.kubernetes.resource': 'workspaces',
        },
      });
      expect(trace.find((span) => span.spanId === call!.parentSpanId)?.name).toBe('a handler');
      expect(received).toEqual([`00-${parentTraceId}-${call!.spanId}-01`]);
      expect(receiver.bodies.join('\n')).not.toContain('cluster-credential');
    } finally {
      await new Promise((resolve) => cluster.close(resolve));
    }
  });
});

describe("issue 23: the fleet's gateway propagates the trace to the replica it forwards to", () => {
  it("the replica receives the gateway span's traceparent (the client's trace) and the client's valid tracestate", async () => {
    platform(); // tracing is on once the platform has started in this process
    const received: Array<{ traceparent?: string; tracestate?: string }> = [];
    const replica = createServer((request, response) => {
      if (request.url === '/readyz') return void response.end('{"status":"ready"}');
      received.push({
        traceparent: String(request.headers.traceparent),
        tracestate: request.headers.tracestate as string,
      });
      response.writeHead(503, { 'content-type': 'application/json' }).end('{}');
    });
    const pools = new Map(FUNCTION_NAMES.map((name) => [name, new UpstreamPool(name, silentLogger)]));
    const settings = loadSettings({}).server;
    const gateway = createServer(
      createFunctionGateway(
        gatewayRules(routeTable('platform.dev')),
        pools,
        createBridgeProxy(undefined, settings),
        settings,
      ),
    );
    try {
      pools.get('resources')!.setUpstreams([`http://127.0.0.1:${await listen(replica, 0, '127.0.0.1')}`]);
      await pools.get('resources')!.checkAll();
      const gatewayPort = await listen(gateway, 0, '127.0.0.1');
      const client = clientTraceParent();
      const response = await fetch(`http://127.0.0.1:${gatewayPort}/api/v1alpha1/auth/whoami`, {
        headers: { traceparent: client.header, tracestate: 'vendor=opaque,other=1' },
      });
      expect(response.status).toBe(503);
      const trace = await exportedTrace(client.traceId);
      const hop = trace.find((span) => span.parentSpanId === client.parentId);
      expect(hop).toMatchObject({
        name: 'GET resources',
        kind: SPAN_KIND.server,
        statusCode: 2, // a 5xx answer marks the hop failed
        attributes: { 'http.response.status_code': 503, 'platform_api.function': 'resources' },
      });
      expect(received).toEqual([
        { traceparent: `00-${client.traceId}-${hop!.spanId}-01`, tracestate: 'vendor=opaque,other=1' },
      ]);
    } finally {
      await new Promise((resolve) => gateway.close(resolve));
      await new Promise((resolve) => replica.close(resolve));
    }
  });
});
