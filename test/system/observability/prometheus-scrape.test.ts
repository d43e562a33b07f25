// Issue 23, Show: a real Prometheus (Debian's package, unpacked into .tools/prometheus by
// infra/tools/install-tools.sh) scrapes the functions through the scrape job documented in
// docs/observability.md, with a ServiceAccount token that the emulator's TokenReview accepts and its RBAC
// lets `get` the non-resource URL /metrics. After traffic (logins that succeed, fail and are throttled,
// refused requests, runs claimed and lapsed, a stream and a watch), every metric the document lists is
// queried with PromQL; a job scraping without a token is refused (up == 0).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { findFreePort } from '../../../shared/base/node/free-port.ts';
import { ADMIN_PASSWORD, adminEnv } from '../../support/admin-fixtures.ts';
import { REPO_ROOT, login } from '../../support/function-servers.ts';
import { writeMountedSecret } from '../../support/mounted-secret-folder.ts';
import { OBSERVABILITY_DOC, documentedMetrics } from '../../support/observability-doc.ts';
import { startReceiver, type TestReceiver } from '../../support/outbound-fixtures.ts';
import { API, TEAM_PROJECT, callAs, send, usePlatform, workspaceObject } from '../../support/platform-fixture.ts';

const PROMETHEUS = join(REPO_ROOT, '.tools/prometheus/usr/bin/prometheus');
const SCRAPER = 'prometheus';

// The admin settings come from a followed folder, so the secret source's readings are metrics too.
const secretFolder = await mkdtemp(join(tmpdir(), 'metrics-admin-secret-'));
const { NODE_ENV: _production, ...adminValues } = adminEnv();
await writeMountedSecret(secretFolder, adminValues);
const platform = usePlatform({
  ADMIN_SECRET_SOURCE: `file:${secretFolder}`,
  ADMIN_SECRET_POLL_INTERVAL: '1s',
  // The outbound metrics (issue 47): receivers on this machine, two attempts, swept through the route alone.
  OUTBOUND_ALLOWED_CIDRS: '127.0.0.1/32',
  OUTBOUND_MAX_ATTEMPTS: '2',
  OUTBOUND_RETRY_BASE: '10ms',
  OUTBOUND_RETRY_MAX: '10ms',
  OUTBOUND_SWEEP_INTERVAL: '10m',
});
const as = (who: 'admin' | 'serviceAccount' | 'controller') => callAs(platform, who);

/** The documented job (the yaml block with `job_name: platform-api`), its targets made static. */
async function documentedScrapeJob(target: string, tokenFile: string): Promise<Record<string, unknown>> {
  const doc = await readFile(OBSERVABILITY_DOC, 'utf8');
  const block = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].find((match) =>
    match[1]!.includes('job_name: platform-api'),
  );
  if (!block) throw new Error('docs/observability.md documents no platform-api scrape job');
  const job = (parse(block[1]!) as { scrape_configs: Array<Record<string, unknown>> }).scrape_configs[0]!;
  const { kubernetes_sd_configs: _discovery, relabel_configs: _relabel, ...rest } = job;
  const authorization = rest.authorization as { credentials_file: string };
  return {
    ...rest,
    authorization: { ...authorization, credentials_file: tokenFile },
    scrape_interval: '1s',
    scrape_timeout: '1s',
    static_configs: [{ targets: [target] }],
  };
}

let prometheus: ChildProcess | undefined;
let prometheusUrl = '';
let folder = '';
let output = '';

beforeAll(async () => {
  if (!existsSync(PROMETHEUS)) throw new Error(`${PROMETHEUS} is missing: run bash infra/tools/install-tools.sh`);
  const { cluster, gateway } = platform();
  await cluster.createServiceAccount(SCRAPER);
  await cluster.allowPaths(SCRAPER, ['/metrics'], ['get']);
  folder = await mkdtemp(join(tmpdir(), 'prometheus-'));
  const tokenFile = join(folder, 'token');
  await writeFile(tokenFile, await cluster.mintToken(SCRAPER), { mode: 0o600 });
  const target = new URL(gateway.url).host;
  const job = await documentedScrapeJob(target, tokenFile);
  const { authorization: _none, ...withoutToken } = job;
  await writeFile(
    join(folder, 'prometheus.yml'),
    stringify({
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      scrape_configs: [job, { ...withoutToken, job_name: 'platform-api-without-token' }],
    }),
  );
  const port = await findFreePort();
  prometheusUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    PROMETHEUS,
    [
      `--config.file=${join(folder, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(folder, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  prometheus.stdout!.on('data', (chunk) => (output += chunk));
  prometheus.stderr!.on('data', (chunk) => (output += chunk));
  await driveTraffic();
}, 60_000);

afterAll(async () => {
  if (prometheus && prometheus.exitCode === null) {
    const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
    prometheus.kill('SIGTERM');
    await exited;
  }
  await rm(folder, { recursive: true, force: true });
  await rm(secretFolder, { recursive: true, force: true });
});

const openStreams: AbortController[] = [];
const receivers: TestReceiver[] = [];
afterAll(async () => {
  for (const stream of openStreams) stream.abort();
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

/** Two Notifications of the run creations in `workspace`: one to a receiver that answers 200, one to a receiver that answers 500. */
async function notifyRunCreations(workspace: string): Promise<void> {
  const [healthy, failing] = [await startReceiver(), await startReceiver()];
  receivers.push(healthy, failing);
  failing.answer = (_request, response) => {
    response.statusCode = 500;
    response.end('down');
  };
  for (const [name, receiver] of [
    ['healthy', healthy],
    ['failing', failing],
  ] as const) {
    const created = await as('admin')('POST', `${API}/namespaces/${TEAM_PROJECT}/notifications`, {
      apiVersion: 'platform.dev/v1alpha1',
      kind: 'Notification',
      metadata: { name },
      spec: { events: ['RunCreated'], workspaces: [workspace], receiver: { type: 'cloudevents', url: receiver.url } },
    });
    expect(created.status).toBe(201);
  }
}

/** Sweeps through the scheduled trigger's route until nothing is pending (each sweep waits for its attempts). */
async function sweepUntilSettled(): Promise<void> {
  for (;;) {
    const swept = await as('controller')('POST', '/internal/outbound/sweep');
    expect(swept.status).toBe(200);
    const report = (await swept.json()) as { routed: number; claimed: number };
    if (report.routed === 0 && report.claimed === 0) {
      const log = await as('admin')('GET', `/api/v1alpha1/projects/${TEAM_PROJECT}/notifications/failing/deliveries`);
      const { items } = (await log.json()) as { items: { state: string }[] };
      if (items.length > 0 && items.every((item) => item.state !== 'pending')) return;
    }
  }
}

/** Traffic that moves every documented metric. */
async function driveTraffic(): Promise<void> {
  const { gateway } = platform();
  const runs = `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/observed/runs`;
  await send(
    gateway.url,
    platform().tokens.admin,
    'POST',
    `${API}/namespaces/${TEAM_PROJECT}/workspaces`,
    workspaceObject('observed'),
  );
  await notifyRunCreations('observed');
  expect((await login(gateway.url, ADMIN_PASSWORD)).status).toBe(200);
  // A Project token created and revoked (issue 46).
  const tokens = `/api/v1alpha1/projects/${TEAM_PROJECT}/tokens`;
  const token = { name: 'observed', role: { kind: 'Role', name: 'ci' }, lifetime: '1h' };
  expect((await as('admin')('POST', tokens, token)).status).toBe(201);
  expect((await as('admin')('DELETE', `${tokens}/observed`)).status).toBe(204);
  // Five failures from this client, then the throttle refuses it.
  for (let attempt = 0; attempt < 6; attempt += 1) await login(gateway.url, 'not the password');
  expect((await fetch(`${gateway.url}${API}/projects`)).status).toBe(401);
  expect((await as('serviceAccount')('GET', `${API}/projects`)).status).toBe(403);
  expect((await as('serviceAccount')('GET', `${API}/namespaces/${TEAM_PROJECT}/workspaces`)).status).toBe(200);
  const lapsing = (await (await as('admin')('POST', runs, { type: 'plan' })).json()) as { id: string };
  const claim = (leaseSeconds: number) =>
    as('controller')('POST', '/internal/runs/claim', { project: TEAM_PROJECT, workspace: 'observed', leaseSeconds });
  expect((await claim(1)).status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  // The lapsed lease is collected and its run handed out again.
  expect((await claim(60)).status).toBe(200);
  expect((await claim(60)).status).toBe(204);
  await as('admin')('POST', runs, { type: 'plan' });
  await sweepUntilSettled();
  // A stream and a watch stay open while Prometheus scrapes.
  for (const path of [
    `/api/v1alpha1/run-logs/${TEAM_PROJECT}/${lapsing.id}`,
    `${API}/namespaces/${TEAM_PROJECT}/workspaces?watch=true`,
  ]) {
    const stream = new AbortController();
    openStreams.push(stream);
    const response = await fetch(`${gateway.url}${path}`, {
      headers: { authorization: `Bearer ${platform().tokens.admin}` },
      signal: stream.signal,
    });
    expect(response.status).toBe(200);
  }
}

/** Runs an instant PromQL query; resolves with its result vector. */
async function query(promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
  const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const answer = (await response.json()) as { status: string; data: { result: never[] }; error?: string };
  if (answer.status !== 'success') throw new Error(`${promql}: ${answer.error}`);
  return answer.data.result;
}

/** Polls a query until `accept` holds for its result (Prometheus scrapes every second). */
async function eventually<T>(promql: string, accept: (result: Awaited<ReturnType<typeof query>>) => T): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const result = await query(promql).catch(() => []);
    try {
      return accept(result);
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${(error as Error).message}\nprometheus output:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

const value = (result: Awaited<ReturnType<typeof query>>) => {
  if (result.length === 0) throw new Error('no series');
  return Number(result[0]!.value[1]);
};

describe('issue 23: a real Prometheus scrapes /metrics with the documented job and a ServiceAccount token', () => {
  it('the target is up with the token; the same job without a token is refused (up == 0)', async () => {
    expect(await eventually('up{job="platform-api"}', value)).toBe(1);
    expect(await eventually('up{job="platform-api-without-token"}', value)).toBe(0);
  });

  it('every metric docs/observability.md lists has a series in Prometheus', async () => {
    const documented = await documentedMetrics();
    expect(documented.size).toBeGreaterThanOrEqual(19);
    for (const [metric, type] of documented) {
      const name = type === 'histogram' ? `${metric}_count` : metric;
      await eventually(`count(${name}{job="platform-api"})`, value).catch((error: Error) => {
        throw new Error(`${metric}: ${error.message}`);
      });
    }
  });

  it('the traffic shows where it should: logins by outcome, throttling, refusals, claims, lapses, streams and the queue', async () => {
    const at = (promql: string) => eventually(promql, value);
    expect(await at('sum(platform_api_logins_total{outcome="success"})')).toBeGreaterThanOrEqual(1);
    expect(await at('sum(platform_api_logins_total{outcome="wrong-password"})')).toBe(5);
    expect(await at('platform_api_login_throttle_refusals_total{budget="client"}')).toBe(1);
    expect(await at('sum(platform_api_authentication_attempts_total{result="MissingToken"})')).toBeGreaterThanOrEqual(
      1,
    );
    expect(
      await at('sum(http_server_request_duration_seconds_count{function="resources",http_response_status_code="403"})'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      await at('sum(platform_api_cluster_reviews_total{review="SubjectAccessReview",result="denied"})'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      await at('sum(platform_api_cluster_reviews_total{review="TokenReview",result="authenticated"})'),
    ).toBeGreaterThanOrEqual(1);
    expect(await at('platform_api_run_claims_total{result="claimed"}')).toBe(2);
    expect(await at('platform_api_run_claims_total{result="empty"}')).toBe(1);
    expect(await at('platform_api_run_lease_lapses_total')).toBe(1);
    // The lapsed run's second claim is its second attempt.
    expect(await at('platform_api_run_claim_attempts_bucket{le="1"}')).toBe(1);
    expect(await at('platform_api_run_claim_attempts_bucket{le="2"}')).toBe(2);
    expect(await at('platform_api_run_queue_depth')).toBe(1);
    expect(await at('platform_api_open_streams{kind="run_log"}')).toBe(1);
    expect(await at('platform_api_open_streams{kind="watch"}')).toBe(1);
    expect(await at('sum(platform_api_secret_source_reloads_total{result="unchanged"})')).toBeGreaterThanOrEqual(1);
    // The hooks deep in the clients were heard, not only declared.
    expect(await at('platform_api_database_query_duration_seconds_count')).toBeGreaterThan(0);
    expect(await at('platform_api_database_pool_connections{state="total"}')).toBeGreaterThan(0);
    expect(await at('sum(platform_api_cluster_request_duration_seconds_count{verb="post"})')).toBeGreaterThan(0);
    expect(await at('sum(platform_api_review_cache_lookups_total{cache="token",result="hit"})')).toBeGreaterThan(0);
    expect(
      await at('sum(platform_api_review_cache_lookups_total{cache="subject_access_review",result="miss"})'),
    ).toBeGreaterThan(0);
    expect(await at('platform_api_signing_key_age_seconds')).toBeGreaterThan(0);
    expect(await at('platform_api_audit_events_dropped_total{sink="database"}')).toBe(0);
    // Issue 47: two run creations to each receiver; the failing one's two attempts each end given up.
    expect(await at('platform_api_outbound_deliveries_total{family="notification",outcome="delivered"}')).toBe(2);
    expect(await at('platform_api_outbound_deliveries_total{family="notification",outcome="retried"}')).toBe(2);
    expect(await at('platform_api_outbound_deliveries_total{family="notification",outcome="given_up"}')).toBe(2);
    expect(
      await at('platform_api_outbound_delivery_attempts_bucket{family="notification",outcome="given_up",le="1"}'),
    ).toBe(0);
    expect(
      await at('platform_api_outbound_delivery_attempts_bucket{family="notification",outcome="given_up",le="2"}'),
    ).toBe(2);
    expect(await at('platform_api_outbound_attempt_duration_seconds_count{family="notification"}')).toBe(6);
    expect(await at('platform_api_outbound_queue_depth')).toBe(0);
    expect(await at('platform_api_outbound_queue_oldest_age_seconds')).toBe(0);
    // Route templates only: the Project's name never becomes a label value.
    expect(await query(`count({http_route=~".*${TEAM_PROJECT}.*"})`)).toEqual([]);
  });
});
