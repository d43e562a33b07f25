// Issue 23, item 3, "W3C traceparent propagated by the gateway to the function", across processes:
// the fleet (its gateway in this process, each function a process of its own) exports to one
// in-process OTLP receiver, and one request through the gateway is one trace whose function span,
// exported by the replica's process, is the child of the gateway's.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from '../../../infra/development/fleet/fleet.ts';
import { loadSettings } from '../../../shared/base/config/settings.ts';
import { flushTraces } from '../../../shared/base/tracing/start-tracing.ts';
import { startTestDatabase, type TestDatabase } from '../../support/test-database.ts';
import { capturingLogger, loginToken } from '../../support/function-servers.ts';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver } from '../../support/otlp-receiver.ts';

let fleet: Fleet | undefined;
let database: TestDatabase;
let receiver: OtlpReceiver;
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'platform-api-fleet-traces-'));
  [database, receiver] = await Promise.all([startTestDatabase(), startOtlpReceiver()]);
  const env = {
    PORT: '0',
    DATABASE_URL: database.connectionString,
    LOG_LEVEL: 'warn',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  };
  fleet = await startFleet(loadSettings(env), env, {
    replicas: 1,
    dataDir: join(folder, 'data'),
    logger: capturingLogger(),
    host: '127.0.0.1',
  });
}, 180_000);

afterAll(async () => {
  await fleet?.close();
  await database?.destroy();
  await receiver?.close();
  await rm(folder, { recursive: true, force: true });
});

/** The spans of one trace once `service` has exported one of them, waiting at most `timeoutMs`. */
async function tracedBy(traceId: string, service: string, timeoutMs: number) {
  await flushTraces();
  const deadline = Date.now() + timeoutMs;
  const ofTrace = () => receiver.spans.filter((span) => span.traceId === traceId);
  while (!ofTrace().some((span) => span.service === service) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100));
  return ofTrace();
}

describe("issue 23: the fleet's gateway and its function processes make one trace", () => {
  it("gateway span (platform-api-gateway) → the replica's span (platform-api-resources) → its database query", async () => {
    const token = await loginToken(fleet!.url);
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const response = await fetch(`${fleet!.url}/api/v1alpha1/projects/demo/runs`, {
      headers: { authorization: `Bearer ${token}`, traceparent: `00-${traceId}-${parentId}-01` },
    });
    expect(response.status).toBe(200);
    // The replica exports in batches (every 5 s); the gateway's span is flushed here.
    const trace = await tracedBy(traceId, 'platform-api-resources', 15_000);
    const hop = trace.find((span) => span.parentSpanId === parentId);
    expect(hop).toMatchObject({ service: 'platform-api-gateway', kind: SPAN_KIND.server, name: 'GET resources' });
    const served = trace.find((span) => span.parentSpanId === hop!.spanId);
    expect(served).toMatchObject({
      service: 'platform-api-resources',
      kind: SPAN_KIND.server,
      name: 'GET /api/v1alpha1/projects/{project}/runs',
      attributes: { 'platform_api.principal.type': 'admin', 'http.response.status_code': 200 },
    });
    const query = trace.find((span) => span.attributes['db.system.name'] === 'postgresql');
    expect(query).toMatchObject({ service: 'platform-api-resources', kind: SPAN_KIND.client });
    expect(
      trace.filter((span) => span.service === 'platform-api-resources').every((span) => span.parentSpanId !== ''),
    ).toBe(true);
  });
});
