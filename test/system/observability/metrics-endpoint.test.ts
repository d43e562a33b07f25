// Issue 23, items 1 and 2: `/metrics` on every function, authorized like kube-apiserver's (a SubjectAccessReview
// on the non-resource URL `/metrics`, verb `get`), in the Prometheus text format; the HTTP metric labelled by the
// route TEMPLATE, never the raw path; one registry per context; METRICS=off records nothing and serves 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../../knative/node-http/running-server.ts';
import { createMetrics } from '../../../shared/base/metrics/metrics.ts';
import { ADMIN_PASSWORD, adminEnv } from '../../support/admin-fixtures.ts';
import { getWithToken, login, loginToken, startTestGateway } from '../../support/function-servers.ts';
import { startIdentityCluster, type IdentityCluster } from '../../support/identity-cluster.ts';

/** The sample lines of one metric in a text exposition, e.g. `metric{a="b"} 1`. */
function samples(exposition: string, metric: string): string[] {
  return exposition.split('\n').filter((line) => line.startsWith(`${metric}{`) || line.startsWith(`${metric} `));
}

describe('issue 23: /metrics, authorized as the non-resource URL /metrics (verb get), in the Prometheus text format', () => {
  let cluster: IdentityCluster;
  let gateway: RunningServer;

  beforeAll(async () => {
    cluster = await startIdentityCluster();
    await cluster.createServiceAccount('prometheus');
    await cluster.allowPaths('prometheus', ['/metrics'], ['get']);
    await cluster.createServiceAccount('stranger');
    await cluster.allowPaths('stranger', ['/internal/*'], ['get']);
    gateway = await startTestGateway(adminEnv(), { kubeConfig: cluster.emulator.kubeConfig() });
  });
  afterAll(async () => {
    await gateway.close();
    await cluster.close();
  });

  it('without a token: 401, as every protected route', async () => {
    const response = await fetch(`${gateway.url}/metrics`);
    expect(response.status).toBe(401);
  });

  it('a ServiceAccount without `get` on /metrics: 403', async () => {
    const response = await getWithToken(gateway.url, '/metrics', await cluster.mintToken('stranger'));
    expect(response.status).toBe(403);
  });

  it('the scraper ServiceAccount bound to nonResourceURLs ["/metrics"]: 200, text exposition format', async () => {
    const response = await getWithToken(gateway.url, '/metrics', await cluster.mintToken('prometheus'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await response.text()).toContain('# TYPE http_server_request_duration_seconds histogram');
  });

  it('requests are counted under their route template and function; a path no route matches under one fixed value', async () => {
    const admin = await loginToken(gateway.url, ADMIN_PASSWORD);
    await getWithToken(gateway.url, '/apis/platform.dev/v1alpha1/namespaces/some-secret-name/workspaces', admin);
    await getWithToken(gateway.url, '/no/such/path/8f3a', admin);
    await login(gateway.url, 'wrong password');
    const text = await (await getWithToken(gateway.url, '/metrics', await cluster.mintToken('prometheus'))).text();
    const http = samples(text, 'http_server_request_duration_seconds_count');
    expect(http).toContainEqual(
      expect.stringMatching(
        /http_request_method="GET",http_route="\/apis\/platform\.dev\/v1alpha1\/namespaces\/\{namespace\}\/workspaces",http_response_status_code="\d+",function="resources"/,
      ),
    );
    expect(http).toContainEqual(expect.stringMatching(/http_route="unmatched",http_response_status_code="404"/));
    expect(text).not.toContain('some-secret-name');
    expect(text).not.toContain('8f3a');
    expect(samples(text, 'platform_api_logins_total')).toContainEqual(
      expect.stringMatching(/outcome="wrong-password"\} [1-9]/),
    );
    expect(samples(text, 'platform_api_authentication_attempts_total')).toContainEqual(
      expect.stringMatching(/principal_type="serviceaccount",result="success"\} [1-9]/),
    );
  });
});

describe('issue 23: one registry per context, and METRICS=off', () => {
  it('two contexts in one process keep their own counts', async () => {
    const [first, second] = [createMetrics(true), createMetrics(true)];
    first.login('success');
    expect((await first.exposition()).body).toMatch(/platform_api_logins_total\{outcome="success"\} 1/);
    expect((await second.exposition()).body).not.toMatch(/platform_api_logins_total\{outcome="success"\}/);
  });

  it('the run queue is exported only once a source answers (a function that never opened the run database has none)', async () => {
    const metrics = createMetrics(true);
    let open = false;
    metrics.collectOnScrape({ runQueue: async () => (open ? { depth: 3, oldestAgeSeconds: 42 } : undefined) });
    expect((await metrics.exposition()).body).not.toContain('platform_api_run_queue_depth');
    open = true;
    const { body } = await metrics.exposition();
    expect(body).toMatch(/^platform_api_run_queue_depth 3$/m);
    expect(body).toMatch(/^platform_api_run_queue_oldest_pending_age_seconds 42$/m);
  });

  it('METRICS=off: /metrics answers 404 to an authorized caller', async () => {
    const gateway = await startTestGateway(adminEnv({ METRICS: 'off' }));
    try {
      const response = await getWithToken(gateway.url, '/metrics', await loginToken(gateway.url, ADMIN_PASSWORD));
      expect(response.status).toBe(404);
    } finally {
      await gateway.close();
    }
  });
});
