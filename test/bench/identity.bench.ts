// Authenticated GET throughput for an OIDC user and a ServiceAccount (caches warm) beside the admin
// path, measured in the same run against one `internal` function server: every request is
// authenticated and authorized (/internal/* is a non-resource SubjectAccessReview; the admin bypasses it).
import { issueAdminToken } from '../../shared/auth/admin-token.ts';
import { startFunctionServer } from '../../knative/function-server.ts';
import { adminEnv } from '../support/admin-fixtures.ts';
import { silentLogger } from '../support/function-servers.ts';
import { startIdentityCluster } from '../support/identity-cluster.ts';
import { OIDC_CLIENTS, startOidcProvider } from '../support/oidc-provider.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';
import { runLoad } from './http-load.ts';
import { loadSettings } from '../../shared/base/config/settings.ts';

const CONCURRENCY = 16;
const REQUESTS_PER_RUN = 20_000;
const ROUNDS = 3;
const WARM_UP_REQUESTS = 2_000;
const TARGET_RATIO = 0.8;
const PATH = '/internal/bench';

export const identityBenchmark: Benchmark = async () => {
  const cluster = await startIdentityCluster();
  const provider = await startOidcProvider([{ sub: 'alice', email: 'alice@example.com', groups: ['platform-eng'] }]);
  await cluster.createServiceAccount('platform-admin', { 'platform.dev/claim.groups': 'platform-eng' });
  await cluster.allowPaths('platform-admin', ['/internal/*'], ['get']);
  await cluster.createServiceAccount('controller');
  await cluster.allowPaths('controller', ['/internal/*'], ['get']);
  const server = await startFunctionServer(
    loadSettings(
      adminEnv({
        FUNCTION_TARGET: 'internal',
        PORT: '0',
        OIDC_ISSUER_URL: provider.issuer,
        OIDC_CLIENT_ID: OIDC_CLIENTS.web,
      }),
    ),
    { kubeConfig: cluster.emulator.kubeConfig(), logger: silentLogger, host: '127.0.0.1' },
  );
  try {
    const tokens = {
      admin: await issueAdminToken(server.context.adminSettings.current(), server.context.config.apiBaseUrl),
      oidc: await provider.login('alice'),
      serviceAccount: await cluster.mintToken('controller'),
    };
    const throughput = { admin: 0, oidc: 0, serviceAccount: 0 };
    // Round 0 warms the JIT and the caches and is not counted. The others interleave the three
    // paths so drift in machine load hits them alike; each path keeps its best round.
    for (let round = 0; round <= ROUNDS; round++) {
      for (const principal of ['admin', 'oidc', 'serviceAccount'] as const) {
        const requests = round === 0 ? WARM_UP_REQUESTS : REQUESTS_PER_RUN;
        const result = await runLoad(`${server.url}${PATH}`, {
          headers: { authorization: `Bearer ${tokens[principal]}` },
          concurrency: CONCURRENCY,
          durationMs: 60_000,
          maxRequests: requests,
        });
        // 404 is the internal function's answer once authorization allowed the call; anything else is a failure.
        if (Object.keys(result.statuses).some((status) => status !== '404')) {
          throw new Error(`${principal} requests were not all authorized: ${JSON.stringify(result.statuses)}`);
        }
        if (round > 0) throughput[principal] = Math.max(throughput[principal], result.requestsPerSecond);
      }
    }
    const rows: BenchRow[] = [
      { name: 'authenticated GET /internal/*, admin (no SubjectAccessReview)', value: throughput.admin, unit: 'req/s' },
    ];
    for (const [principal, label] of [
      ['oidc', 'OIDC user'],
      ['serviceAccount', 'ServiceAccount'],
    ] as const) {
      const ratio = throughput[principal] / throughput.admin;
      rows.push({
        name: `authenticated GET /internal/*, ${label} (TokenReview/SAR caches warm)`,
        value: throughput[principal],
        unit: 'req/s',
        baselineName: 'admin path',
        baselineValue: throughput.admin,
        ratio,
        target: `>= ${TARGET_RATIO}`,
        met: ratio >= TARGET_RATIO,
      });
    }
    rows.push({
      name: `Kubernetes calls during ${3 * (WARM_UP_REQUESTS + ROUNDS * REQUESTS_PER_RUN)} requests (TokenReview + SubjectAccessReview; TokenReview is redone every 10 s)`,
      value: cluster.emulator.counters.tokenReviews + cluster.emulator.counters.subjectAccessReviews,
      unit: 'calls',
    });
    return rows;
  } finally {
    await server.close(1_000);
    await provider.close();
    await cluster.close();
  }
};
