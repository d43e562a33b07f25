// Issue 47, item 6, "traces from the change to the delivery": the trace context of the request that
// changed a run is carried in its outbox row, so the delivery, swept later by another request (the
// scheduled trigger's), is a span of the change's trace, and the receiver gets that trace's
// `traceparent` to continue it.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { flushTraces } from '../../../shared/base/tracing/start-tracing.ts';
import { startReceiver, type TestReceiver } from '../../support/outbound-fixtures.ts';
import { SPAN_KIND, startOtlpReceiver, type ReceivedSpan } from '../../support/otlp-receiver.ts';
import {
  API,
  TEAM_PROJECT,
  callAs,
  expectStatus,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const collector = await startOtlpReceiver();
// Registered first, so it runs after the platform's: the gateway flushes its spans on close.
afterAll(() => collector.close());
const platform = usePlatform({
  OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
  OUTBOUND_ALLOWED_CIDRS: '127.0.0.1/32',
  // The test sweeps through the route; the process's own timer stays out of the way.
  OUTBOUND_SWEEP_INTERVAL: '10m',
});
let receiver: TestReceiver | undefined;
afterAll(() => receiver?.close());
const WAIT = { timeout: 60_000, interval: 50 };

function ancestorsOf(span: ReceivedSpan, trace: ReceivedSpan[]): ReceivedSpan[] {
  const ancestors: ReceivedSpan[] = [];
  for (let parent = trace.find((s) => s.spanId === span.parentSpanId); parent; ) {
    ancestors.push(parent);
    parent = trace.find((s) => s.spanId === parent!.parentSpanId);
  }
  return ancestors;
}

describe('Issue 47, item 6: traces from the change to the delivery', () => {
  it("a run created under a client's traceparent is delivered in that trace, under the request that created it, and the receiver gets the trace", async () => {
    const { gateway, tokens } = platform();
    receiver = await startReceiver();
    await send(gateway.url, tokens.admin, 'POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, {
      ...workspaceObject('traced-delivery'),
    }).then(expectStatus(201));
    await callAs(platform, 'admin')('POST', `${API}/namespaces/${TEAM_PROJECT}/notifications`, {
      apiVersion: 'platform.dev/v1alpha1',
      kind: 'Notification',
      metadata: { name: 'traced' },
      spec: {
        events: ['RunCreated'],
        workspaces: ['traced-delivery'],
        receiver: { type: 'cloudevents', url: receiver.url },
      },
    }).then(expectStatus(201));

    const traceId = randomBytes(16).toString('hex');
    const clientSpanId = randomBytes(8).toString('hex');
    const created = await fetch(
      `${gateway.url}/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/traced-delivery/runs`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tokens.admin}`,
          'content-type': 'application/json',
          traceparent: `00-${traceId}-${clientSpanId}-01`,
        },
        body: JSON.stringify({ type: 'plan' }),
      },
    );
    expect(created.status).toBe(201);
    // The sweep is a request of its own, in a trace of its own (no traceparent): the delivery still joins the change's.
    await vi.waitFor(async () => {
      await callAs(platform, 'controller')('POST', '/internal/outbound/sweep').then(expectStatus(200));
      if (receiver!.received.length === 0) throw new Error('not delivered yet');
    }, WAIT);

    expect(receiver.received[0]!.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    await flushTraces();
    const trace = collector.spans.filter((span) => span.traceId === traceId);
    const delivery = trace.find((span) => span.name === 'outbound delivery');
    expect(delivery).toMatchObject({
      kind: SPAN_KIND.client,
      attributes: {
        'platform_api.outbound.family': 'notification',
        'platform_api.outbound.event_type': 'run.created',
        'platform_api.outbound.attempt': 1,
        'http.response.status_code': 200,
      },
    });
    // Its parent is the statement that recorded the run (and its event), under the request that created it.
    const ancestors = ancestorsOf(delivery!, trace);
    expect(ancestors[0]).toMatchObject({ kind: SPAN_KIND.client, attributes: { 'db.system.name': 'postgresql' } });
    expect(ancestors.map((span) => span.name)).toContain(
      'POST /api/v1alpha1/projects/{project}/workspaces/{workspace}/runs',
    );
    expect(ancestors.at(-1)!.parentSpanId).toBe(clientSpanId);
    // The receiver got the delivery span's own id as its parent: it continues the trace from there.
    expect(receiver.received[0]!.headers.traceparent).toBe(`00-${traceId}-${delivery!.spanId}-01`);
  });
});
