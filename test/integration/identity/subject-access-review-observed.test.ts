// Issue 23: what a SubjectAccessReview sent to the cluster tells the metrics and the traces
// (docs/observability.md): `platform_api_cluster_reviews_total{review="SubjectAccessReview", result}`
// with its latency in `platform_api_cluster_review_duration_seconds`, and the CLIENT span
// `SubjectAccessReview` naming the verb, the resource (or `non-resource`) and the answer, never who
// asked nor which object or path. Tracing is turned on for this file's process, so it has a file of its own.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthorizationAttributes } from '../../../shared/authz/authorizer.ts';
import { KubernetesSubjectAccessReviewer, type ReviewSubject } from '../../../shared/authz/subject-access-reviewer.ts';
import { loadTracingSettings } from '../../../shared/base/config/tracing-settings.ts';
import { listen } from '../../../knative/node-http/limited-http-server.ts';
import { flushTraces, startTracing } from '../../../shared/base/tracing/start-tracing.ts';
import { silentLogger } from '../../support/function-servers.ts';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver } from '../../support/otlp-receiver.ts';
import { emulatorKubeConfig } from '../../../infra/kube-emulator/kubeconfig.ts';

/** How long the cluster below takes to answer: the latency the observer must hear at least. */
const ANSWER_DELAY_MS = 60;
const SUBJECT: ReviewSubject = { user: 'system:serviceaccount:secret-team:secret-caller', groups: ['g'] };

const kubeConfigFor = (server: string) => emulatorKubeConfig({ server }, 'reviewer-token');

let receiver: OtlpReceiver;
let cluster: Server;
let clusterUrl: string;
/** What the cluster answers: allowed when the review's verb is `get`, after ANSWER_DELAY_MS. */
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  await startTracing(
    loadTracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'authz-test' }),
    'authz-test',
    silentLogger,
  );
  cluster = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const review = JSON.parse(text);
      const verb = review.spec.resourceAttributes?.verb ?? review.spec.nonResourceAttributes?.verb;
      setTimeout(() => {
        response.writeHead(201, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ ...review, status: { allowed: verb === 'get' } }));
      }, ANSWER_DELAY_MS);
    });
  });
  clusterUrl = `http://127.0.0.1:${await listen(cluster, 0, '127.0.0.1')}`;
});
afterAll(async () => {
  await new Promise((resolve) => cluster.close(resolve));
  await receiver.close();
});

describe('issue 23: each review sent is heard once, with its result and how long the cluster took', () => {
  it('allowed, denied, and error (cluster unreachable: 503), each with its latency in seconds', async () => {
    const heard: Array<[string, number]> = [];
    const observe = (result: string, seconds: number) => heard.push([result, seconds]);
    const reviewer = new KubernetesSubjectAccessReviewer(kubeConfigFor(clusterUrl), silentLogger, observe);
    await reviewer.review(SUBJECT, { nonResourcePath: '/internal/runs', verb: 'get' });
    await reviewer.review(SUBJECT, { nonResourcePath: '/internal/runs', verb: 'post' });
    const unreachable = new KubernetesSubjectAccessReviewer(kubeConfigFor('http://127.0.0.1:1'), silentLogger, observe);
    await expect(unreachable.review(SUBJECT, { nonResourcePath: '/internal/runs', verb: 'get' })).rejects.toMatchObject(
      { status: 503 },
    );
    expect(heard.map(([result]) => result)).toEqual(['allowed', 'denied', 'error']);
    for (const [, seconds] of heard.slice(0, 2)) {
      expect(seconds).toBeGreaterThanOrEqual((ANSWER_DELAY_MS - 5) / 1000);
      expect(seconds).toBeLessThan(10);
    }
    expect(heard[2]![1]).toBeGreaterThanOrEqual(0);
    expect(heard[2]![1]).toBeLessThan(10);
  });
});

describe('issue 23: the SubjectAccessReview span names the verb, the resource and the answer, never the caller or the object', () => {
  it.each<[string, AuthorizationAttributes, Record<string, string | boolean>]>([
    [
      'a subresource',
      { verb: 'get', group: 'platform.dev', resource: 'workspaces', subresource: 'log', namespace: 'ns', name: 'obj' },
      { verb: 'get', resource: 'workspaces/log', allowed: true },
    ],
    [
      'a resource without one',
      { verb: 'delete', group: 'platform.dev', resource: 'workspaces', namespace: 'ns', name: 'obj' },
      { verb: 'delete', resource: 'workspaces', allowed: false },
    ],
    [
      'a non-resource path',
      { nonResourcePath: '/internal/runs/secret-run', verb: 'get' },
      { verb: 'get', resource: 'non-resource', allowed: true },
    ],
  ])('%s', async (_name, attributes, expected) => {
    // Only this review's span: those of the reviews before are exported first, then forgotten.
    await flushTraces();
    receiver.spans.length = 0;
    receiver.bodies.length = 0;
    await new KubernetesSubjectAccessReviewer(kubeConfigFor(clusterUrl), silentLogger).review(SUBJECT, attributes);
    await flushTraces();
    const review = receiver.spans.filter((span) => span.name === 'SubjectAccessReview');
    expect(review).toHaveLength(1);
    const { kind, attributes: recorded } = review[0]!;
    expect({ kind, ...recorded }).toEqual({
      kind: SPAN_KIND.client,
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(clusterUrl).port),
      'platform_api.authorization.verb': expected.verb,
      'platform_api.authorization.resource': expected.resource,
      'platform_api.authorization.allowed': expected.allowed,
    });
    expect(receiver.bodies.join('')).not.toMatch(/secret-/);
  });
});
