// Issue 46, "Show": the cost of a request made with a Project token beside one made with a plain
// ServiceAccount token of the same rights (both verified and authorized from warm caches), and how long a
// revocation on one instance takes to reach another, in the same run. Two `resources` function servers
// share one PostgreSQL and one cluster (the emulator); every request lists Workspaces of one namespace.
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { issueAdminToken } from '../../shared/auth/admin-token.ts';
import { loadSettings } from '../../shared/base/config/settings.ts';
import { installPlatformCrds } from '../../shared/domain/resources/platform-crds.ts';
import { startFunctionServer } from '../../knative/function-server.ts';
import { startTestDatabase } from '../support/test-database.ts';
import { adminEnv } from '../support/admin-fixtures.ts';
import { silentLogger } from '../support/function-servers.ts';
import { startIdentityCluster, TEST_NAMESPACE } from '../support/identity-cluster.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';
import { runLoad } from './http-load.ts';

const GROUP = 'platform.dev';
const NAMESPACE = 'bench';
const PATH = `/apis/${GROUP}/v1alpha1/namespaces/${NAMESPACE}/workspaces`;
const CONCURRENCY = 16;
const REQUESTS_PER_RUN = 5_000;
const ROUNDS = 3;
const TARGET_RATIO = 0.9;
/** The documented bound of a revocation through the API on another instance (docs/tokens.md). */
const REVOCATION_BOUND_MS = 5_000;
const REVOCATIONS = 5;

export const tokensBenchmark: Benchmark = async () => {
  const [cluster, database] = await Promise.all([startIdentityCluster(), startTestDatabase()]);
  const kubeConfig = cluster.emulator.kubeConfig();
  await installPlatformCrds(kubeConfig, GROUP);
  await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NAMESPACE } } });
  const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace: NAMESPACE,
    body: { metadata: { name: 'reader' }, rules: [{ apiGroups: [GROUP], resources: ['workspaces'], verbs: ['list'] }] },
  });
  // The plain ServiceAccount: the same Role, bound by hand as before Project tokens.
  await cluster.createServiceAccount('plain');
  await rbac.createNamespacedRoleBinding({
    namespace: NAMESPACE,
    body: {
      metadata: { name: 'plain' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
      subjects: [{ kind: 'ServiceAccount', namespace: TEST_NAMESPACE, name: 'plain' }],
    },
  });
  const settings = loadSettings(
    adminEnv({
      FUNCTION_TARGET: 'resources',
      PORT: '0',
      DATABASE_URL: database.connectionString,
      SERVICE_ACCOUNT_ISSUERS: cluster.emulator.serviceAccountIssuer,
      AUDIT_STDOUT: 'false',
    }),
  );
  const servers = await Promise.all(
    [0, 1].map(() => startFunctionServer(settings, { kubeConfig, logger: silentLogger, host: '127.0.0.1' })),
  );
  try {
    const [first, second] = servers as [(typeof servers)[0], (typeof servers)[0]];
    const admin = await issueAdminToken(first.context.adminSettings.current(), first.context.config.apiBaseUrl);
    const createToken = async (name: string): Promise<string> => {
      const response = await fetch(`${first.url}/api/v1alpha1/projects/${NAMESPACE}/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, role: { kind: 'Role', name: 'reader' }, lifetime: '1h' }),
      });
      if (response.status !== 201)
        throw new Error(`creating token ${name}: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { token: string }).token;
    };
    const tokens = { plain: await cluster.mintToken('plain'), project: await createToken('bench') };
    const throughput = { plain: 0, project: 0 };
    // Round 0 warms the JIT and the caches; the others interleave the two so drift hits both alike.
    for (let round = 0; round <= ROUNDS; round++) {
      for (const kind of ['plain', 'project'] as const) {
        const result = await runLoad(`${first.url}${PATH}`, {
          headers: { authorization: `Bearer ${tokens[kind]}` },
          concurrency: CONCURRENCY,
          durationMs: 60_000,
          maxRequests: round === 0 ? 1_000 : REQUESTS_PER_RUN,
        });
        if (Object.keys(result.statuses).some((status) => status !== '200'))
          throw new Error(`${kind} requests were not all answered 200: ${JSON.stringify(result.statuses)}`);
        if (round > 0) throughput[kind] = Math.max(throughput[kind], result.requestsPerSecond);
      }
    }
    const latencies: number[] = [];
    for (let revocation = 0; revocation < REVOCATIONS; revocation++) {
      const name = `revoked-${revocation}`;
      const token = await createToken(name);
      for (const server of servers) await expectStatus(server.url, token, 200);
      const startedAt = performance.now();
      const revoked = await fetch(`${first.url}/api/v1alpha1/projects/${NAMESPACE}/tokens/${name}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${admin}` },
      });
      if (revoked.status !== 204) throw new Error(`revoking ${name}: ${revoked.status}`);
      while ((await fetch(`${second.url}${PATH}`, { headers: { authorization: `Bearer ${token}` } })).status !== 401) {
        if (performance.now() - startedAt > 3 * REVOCATION_BOUND_MS) throw new Error(`${name} still accepted`);
      }
      latencies.push(performance.now() - startedAt);
    }
    latencies.sort((a, b) => a - b);
    const median = latencies[Math.floor(latencies.length / 2)]!;
    const ratio = throughput.project / throughput.plain;
    const rows: BenchRow[] = [
      {
        name: 'authenticated list of Workspaces, Project token (caches warm)',
        value: throughput.project,
        unit: 'req/s',
        baselineName: 'a plain ServiceAccount token of the same Role',
        baselineValue: throughput.plain,
        ratio,
        target: `>= ${TARGET_RATIO}`,
        met: ratio >= TARGET_RATIO,
      },
      {
        name: `revocation on one instance until the other refuses the token (median of ${REVOCATIONS}; the DELETE included)`,
        value: median,
        unit: 'ms',
        baselineName: 'the TokenReview cache lifetime a revocation would otherwise wait for',
        baselineValue: 10_000,
        ratio: median / 10_000,
        target: `<= ${REVOCATION_BOUND_MS} ms`,
        met: median <= REVOCATION_BOUND_MS,
      },
    ];
    return rows;
  } finally {
    await Promise.all(servers.map((server) => server.close(1_000)));
    await Promise.all([cluster.close(), database.destroy()]);
  }
};

async function expectStatus(url: string, token: string, status: number): Promise<void> {
  const response = await fetch(`${url}${PATH}`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}`);
}
