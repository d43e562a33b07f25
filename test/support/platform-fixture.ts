// One running platform for a test file: the Kubernetes emulator with the chart's CRDs, a real
// embedded PostgreSQL, a real OpenID Provider, and the local gateway in production mode on top,
// acting on the cluster as the chart's API-server ServiceAccount with only the chart's RBAC.
// Principals: the admin, an OIDC user mapped to a ServiceAccount with a namespaced Role, and a
// ServiceAccount with its own token.
import type { AuditSink } from '../../shared/domain/audit/audit-recorder.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { afterAll, beforeAll } from 'vitest';
import { generateTlsCertificate } from '../../infra/kube-emulator/self-signed-certificate.ts';
import { RbacAuthorizationV1Api, type V1PolicyRule } from '@kubernetes/client-node';
import type { Logger } from '../../shared/base/logging/logger.ts';
import type { RunningServer } from '../../knative/node-http/running-server.ts';
import { KubernetesRestClient } from '../../shared/base/kubernetes/kubernetes-rest-client.ts';
import { ClusterObjects } from '../../shared/domain/resources/cluster-objects.ts';
import { installPlatformCrds } from '../../shared/domain/resources/platform-crds.ts';
import { ADMIN_PASSWORD, adminEnv } from './admin-fixtures.ts';
import { loginToken, silentLogger, startTestGateway } from './function-servers.ts';
import { applyChartRbac } from './chart-rbac.ts';
import { startIdentityCluster, TEST_NAMESPACE, type IdentityCluster } from './identity-cluster.ts';
import { OIDC_CLIENTS, startOidcProvider, type TestOidcProvider, type TestUser } from './oidc-provider.ts';
import { startTestDatabase, type TestDatabase } from './test-database.ts';

export const GROUP = 'platform.dev';
export const API = `/apis/${GROUP}/v1alpha1`;
/** The Project the OIDC user and the ServiceAccount have Roles in; `OTHER_PROJECT` they have none in. */
export const TEAM_PROJECT = 'team-a';
export const OTHER_PROJECT = 'team-b';
export const OIDC_USER = { sub: 'alice', email: 'alice@example.com', groups: ['team-a-developers'] };
/** The OIDC user as the server names it (OIDC_USERNAME_PREFIX's default `oidc:` before the username claim, issue 38). */
export const OIDC_USERNAME = `oidc:${OIDC_USER.email}`;
/** The ServiceAccount the OIDC user maps to, and the one that calls with its own token. */
export const MAPPED_ACCOUNT = 'team-a-developer';
export const CALLER_ACCOUNT = 'team-a-ci';
export const CALLER_ACCOUNT_USER = `system:serviceaccount:${TEST_NAMESPACE}:${CALLER_ACCOUNT}`;
const CONTROLLER_ACCOUNT = 'workspace-controller';
/** The workspace controller's ServiceAccount user: the holder of the leases it claims. */
export const CONTROLLER_ACCOUNT_USER = `system:serviceaccount:${TEST_NAMESPACE}:${CONTROLLER_ACCOUNT}`;

/** What a developer may do in their Project: its namespaced kinds, runs and logs; Projects are not theirs. */
const DEVELOPER_RULES: V1PolicyRule[] = [
  {
    apiGroups: [GROUP],
    resources: ['workspaces', 'rollouts', 'variablesets', 'workspaces/status', 'workspaces/runs', 'workspaces/log'],
    verbs: ['*'],
  },
];
/** What automation may do there: read Workspaces and start and read runs; no writes to resources. */
const CI_RULES: V1PolicyRule[] = [
  { apiGroups: [GROUP], resources: ['workspaces'], verbs: ['get', 'list'] },
  { apiGroups: [GROUP], resources: ['workspaces/runs'], verbs: ['create', 'get', 'list'] },
];

export interface Platform {
  gateway: RunningServer;
  /** PEM of the gateway's serving certificate, when it serves HTTPS (`usePlatform(env, { tls: true })`). */
  caCertificate?: string;
  oidcIssuer: string;
  /** Logs the OIDC user in again; `ttlSeconds` sets the new ID token's lifetime. */
  oidcLogin(ttlSeconds?: number): Promise<string>;
  database: TestDatabase;
  cluster: IdentityCluster;
  /** The cluster as its administrator sees it, to check what was (not) written. */
  clusterAdmin: ClusterObjects;
  tokens: { admin: string; oidcUser: string; serviceAccount: string; controller: string };
  /** The OpenID Provider, e.g. to log in again with a shorter ID token lifetime. */
  oidcProvider: TestOidcProvider;
}

/**
 * Starts the platform before the file's tests and stops it after; call the returned function inside tests.
 * `serverEnv` adds to the server's environment (e.g. a short RUN_LOG_HEARTBEAT_INTERVAL); `options.logger` hears the
 * server's log; `options.auditSinks` receive its audit events in place of standard output; `options.oidcRedirectUris` are
 * registered with the OpenID Provider (a browser client's). With `options.tls` the gateway serves HTTPS with a generated certificate, which this test process then trusts.
 * `options.oidcUsers` are more accounts of the OpenID Provider beside OIDC_USER (log them in with `oidcProvider.login(sub)`).
 */
export function usePlatform(
  serverEnv: Record<string, string> = {},
  options: {
    tls?: boolean;
    logger?: Logger;
    auditSinks?: AuditSink[];
    oidcRedirectUris?: string[];
    oidcUsers?: TestUser[];
  } = {},
): () => Platform {
  let platform: Platform | undefined;
  let provider: (TestOidcProvider & { close(): Promise<void> }) | undefined;
  let tlsFolder: string | undefined;
  beforeAll(async () => {
    const [cluster, database] = await Promise.all([startIdentityCluster(), startTestDatabase()]);
    let tlsEnv: Record<string, string> = {};
    let caCertificate: string | undefined;
    if (options.tls) {
      ({ env: tlsEnv, folder: tlsFolder, cert: caCertificate } = await servingCertificate());
    }
    provider = await startOidcProvider([OIDC_USER, ...(options.oidcUsers ?? [])], {
      redirectUris: options.oidcRedirectUris ?? [],
    });
    const clusterAdmin = new ClusterObjects(
      new KubernetesRestClient(cluster.emulator.kubeConfig(), silentLogger),
      GROUP,
    );
    await installPlatformCrds(cluster.emulator.kubeConfig(), GROUP);
    await cluster.createServiceAccount(MAPPED_ACCOUNT, {
      [`${GROUP}/claims`]: JSON.stringify({ groups: OIDC_USER.groups }),
    });
    await cluster.createServiceAccount(CALLER_ACCOUNT);
    await cluster.createServiceAccount(CONTROLLER_ACCOUNT);
    await cluster.allowPaths(CONTROLLER_ACCOUNT, ['/internal', '/internal/*'], ['get', 'post']);
    const chartRbac = await applyChartRbac(cluster);
    const env = adminEnv({
      ...chartRbac.env,
      DATABASE_URL: database.connectionString,
      OIDC_ISSUER_URL: provider.issuer,
      OIDC_CLIENT_ID: OIDC_CLIENTS.web,
      OIDC_ADDITIONAL_SCOPES: 'groups',
      OIDC_USERNAME_CLAIM: 'email',
      SERVICE_ACCOUNT_ISSUERS: cluster.emulator.serviceAccountIssuer,
      // Tests read run_log_lines and fingerprint what is stored: the server's own compaction (a pass
      // a minute) leaves their finished runs' rows alone; compaction is driven by its own tests.
      RUN_LOG_COMPACTION_DELAY: '24h',
      ...tlsEnv,
      ...serverEnv,
    });
    const gateway = await startTestGateway(env, {
      kubeConfig: chartRbac.kubeConfig,
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.auditSinks ? { auditSinks: options.auditSinks } : {}),
    });
    const admin = await loginToken(gateway.url, ADMIN_PASSWORD);
    for (const project of [TEAM_PROJECT, OTHER_PROJECT]) {
      await send(gateway.url, admin, 'POST', `${API}/projects`, projectObject(project)).then(expectStatus(201));
    }
    await bindRole(cluster, TEAM_PROJECT, 'developer', DEVELOPER_RULES, MAPPED_ACCOUNT);
    await bindRole(cluster, TEAM_PROJECT, 'ci', CI_RULES, CALLER_ACCOUNT);
    const oidcProvider = provider;
    platform = {
      gateway,
      ...(caCertificate ? { caCertificate } : {}),
      oidcIssuer: oidcProvider.issuer,
      async oidcLogin(ttlSeconds = 3600) {
        const previous = oidcProvider.idTokenTtlSeconds;
        oidcProvider.idTokenTtlSeconds = ttlSeconds;
        try {
          return await oidcProvider.login(OIDC_USER.sub);
        } finally {
          oidcProvider.idTokenTtlSeconds = previous;
        }
      },
      database,
      cluster,
      clusterAdmin,
      oidcProvider: provider,
      tokens: {
        admin,
        oidcUser: await provider.login(OIDC_USER.sub),
        serviceAccount: await cluster.mintToken(CALLER_ACCOUNT),
        controller: await cluster.mintToken(CONTROLLER_ACCOUNT),
      },
    };
  });
  afterAll(async () => {
    await platform?.gateway.close();
    await Promise.all([platform?.database.destroy(), platform?.cluster.close(), provider?.close()]);
    if (tlsFolder) await rm(tlsFolder, { recursive: true, force: true });
  });
  return () => platform!;
}

/** A certificate for 127.0.0.1 in files (TLS_CERT_FILE, TLS_KEY_FILE), trusted by this process's fetch from now on. */
async function servingCertificate(): Promise<{ env: Record<string, string>; folder: string; cert: string }> {
  const { cert, key } = await generateTlsCertificate('127.0.0.1');
  const folder = await mkdtemp(join(tmpdir(), 'platform-tls-'));
  await writeFile(join(folder, 'tls.crt'), cert);
  await writeFile(join(folder, 'tls.key'), key, { mode: 0o600 });
  setDefaultCACertificates([...getCACertificates('default'), cert]);
  return { env: { TLS_CERT_FILE: join(folder, 'tls.crt'), TLS_KEY_FILE: join(folder, 'tls.key') }, folder, cert };
}

/** A namespaced Role with `rules`, bound to the ServiceAccount `account` (in TEST_NAMESPACE). */
export async function bindRole(
  cluster: IdentityCluster,
  namespace: string,
  name: string,
  rules: V1PolicyRule[],
  account: string,
): Promise<void> {
  const rbac = cluster.emulator.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules } });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', namespace: TEST_NAMESPACE, name: account }],
    },
  });
}

/** Sends a request with a bearer token and a JSON body (or the given raw text). */
export function send(
  baseUrl: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': contentType } : {}) },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
}

/** Calls the platform's gateway as one of its principals: a JSON body when given, and extra headers. */
export function callAs(platform: () => Platform, who: keyof Platform['tokens']) {
  return (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${platform().gateway.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${platform().tokens[who]}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
}

/** Checks the status and resolves to the JSON body (for `.then(expectStatus(201))`). */
export function expectStatus(status: number) {
  return async (response: Response): Promise<any> => {
    const text = await response.text();
    if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  };
}

export function projectObject(
  name: string,
  spec: Record<string, unknown> = { displayName: name },
): Record<string, unknown> {
  return { apiVersion: `${GROUP}/v1alpha1`, kind: 'Project', metadata: { name }, spec };
}

/**
 * A Workspace whose apply runs may start without a plan (`allowApplyWithoutPlan`), as the run tests start them;
 * the approval tests (issue 37) make Workspaces that apply only reviewed plans.
 */
export function workspaceObject(name: string, labels: Record<string, string> = {}): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/v1alpha1`,
    kind: 'Workspace',
    metadata: { name, labels },
    spec: {
      source: { repository: 'https://git.example.com/infra.git', path: 'network' },
      tool: { name: 'opentofu', version: '1.8.2' },
      allowApplyWithoutPlan: true,
    },
  };
}

export function variableSetObject(name: string, variables: unknown[]): Record<string, unknown> {
  return { apiVersion: `${GROUP}/v1alpha1`, kind: 'VariableSet', metadata: { name }, spec: { variables } };
}

export function rolloutObject(name: string, workspaces: string[]): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/v1alpha1`,
    kind: 'Rollout',
    metadata: { name },
    spec: { revision: 'r1', stages: workspaces.map((workspace) => ({ workspace })) },
  };
}

/** A valid object of the platform kind `kind` named `name`, as the builders above make them. */
export function validObject(kind: string, name: string): Record<string, unknown> {
  const builders: Record<string, (name: string) => Record<string, unknown>> = {
    Project: (name) => projectObject(name),
    Workspace: (name) => workspaceObject(name),
    Rollout: (name) => rolloutObject(name, ['network']),
    VariableSet: (name) => variableSetObject(name, [{ name: 'region', value: 'eu-west-1' }]),
    Notification: (name) => ({
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'Notification',
      metadata: { name },
      spec: { events: ['RunFailed'], receiver: { type: 'cloudevents', url: 'https://hooks.example.com/platform' } },
    }),
  };
  const build = builders[kind];
  if (!build) throw new Error(`no builder of a valid ${kind}`);
  return build(name);
}
