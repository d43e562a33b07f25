// Issue 38, item 2: an OIDC user whose username claim is `admin` was recorded as `{"username":"admin"}`
// in the audit trail and as principal `admin` on the runs it started, like the admin account; a claim
// `system:serviceaccount:ns:name` likewise passed for a ServiceAccount. As kube-apiserver's
// `--oidc-username-prefix` and `--oidc-groups-prefix`, OIDC usernames and groups are now named with a
// prefix (OIDC_USERNAME_PREFIX, OIDC_GROUPS_PREFIX, `oidc:` by default) everywhere a principal is
// named; what the cluster is asked (SubjectAccessReviews as the mapped ServiceAccounts) is unchanged.
import type { RecordedRequest } from '../../../infra/kube-emulator/index.ts';
import { describe, expect, it } from 'vitest';
import { loadIdentityConfig } from '../../../shared/base/config/identity-config.ts';
import { ConfigError } from '../../../shared/base/config/config-error.ts';
import { AuditCapture } from '../../support/audit-capture.ts';
import { capturingLogger } from '../../support/function-servers.ts';
import { TEST_NAMESPACE } from '../../support/identity-cluster.ts';
import {
  API,
  CALLER_ACCOUNT_USER,
  MAPPED_ACCOUNT,
  OIDC_USER,
  OIDC_USERNAME,
  TEAM_PROJECT,
  expectStatus,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

/** Users of the identity provider whose username claims read as other principals; both map to the developer ServiceAccount. */
const IMPOSTORS = [
  { sub: 'mallory', email: 'admin', groups: ['team-a-developers', 'system:masters'] },
  { sub: 'eve', email: CALLER_ACCOUNT_USER, groups: ['team-a-developers'] },
];
const MAPPED_USER = `system:serviceaccount:${TEST_NAMESPACE}:${MAPPED_ACCOUNT}`;

const logger = capturingLogger();
const audit = new AuditCapture();
const platform = usePlatform({}, { logger, auditSinks: [audit], oidcUsers: IMPOSTORS });

describe('issue 38 item 2: an OIDC user is named `oidc:<username claim>`, its groups `oidc:<group>`, wherever a principal is named', () => {
  it.each(IMPOSTORS)(
    '$email: whoami, the run it starts and cancels, its audit events and the request log',
    async ({ sub, email, groups }) => {
      const { gateway, oidcProvider, tokens } = platform();
      const token = await oidcProvider.login(sub);
      const as = (method: string, path: string, body?: unknown) => send(gateway.url, token, method, path, body);
      const named = `oidc:${email}`;

      expect(await as('GET', '/api/v1alpha1/auth/whoami').then(expectStatus(200))).toEqual({
        type: 'oidc',
        name: named,
      });

      const workspace = `prefixed-${sub}`;
      await send(
        gateway.url,
        tokens.admin,
        'POST',
        `${API}/namespaces/${TEAM_PROJECT}/workspaces`,
        workspaceObject(workspace),
      ).then(expectStatus(201));
      const started = await as('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/${workspace}/runs`, {
        type: 'plan',
      });
      const run = await started.clone().json();
      expect(started.status).toBe(201);
      expect(run).toMatchObject({ principal: named, principalType: 'oidc' });
      const cancelled = await as('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${run.id}/cancel`).then(
        expectStatus(200),
      );
      expect(cancelled.cancelRequestedBy).toBe(named);

      const event = audit.completed(started);
      expect(event.user).toEqual({ username: named, groups: groups.map((group) => `oidc:${group}`) });
      // The server acted with the mapped ServiceAccount's rights, named as the cluster names it.
      expect(event.impersonatedUser?.username).toBe(MAPPED_USER);
      const requestLines = logger.lines.filter((line) => line.includes(`"principal":${JSON.stringify(named)}`));
      expect(requestLines.length).toBeGreaterThanOrEqual(3);
      // Only these users ask whoami in this file: its request lines never name one without the prefix.
      const whoamiLines = logger.lines.filter((line) => line.includes('"path":"/api/v1alpha1/auth/whoami"'));
      expect(whoamiLines.length).toBeGreaterThan(0);
      for (const line of whoamiLines) expect(line).toContain('"principal":"oidc:');
    },
  );

  it('the record cannot confuse them with the admin or the ServiceAccount: no event or run of theirs carries those names', async () => {
    const { database } = platform();
    const impostorRuns = await database.pool.query(
      "SELECT principal, principal_type FROM runs WHERE workspace LIKE 'prefixed-%' ORDER BY principal",
    );
    expect(impostorRuns.rows).toEqual([
      { principal: 'oidc:admin', principal_type: 'oidc' },
      { principal: `oidc:${CALLER_ACCOUNT_USER}`, principal_type: 'oidc' },
    ]);
    const impostorEvents = audit.events.filter((event) => event.impersonatedUser?.username === MAPPED_USER);
    expect(impostorEvents.length).toBeGreaterThan(0);
    for (const event of impostorEvents) {
      expect(event.user.username.startsWith('oidc:'), event.user.username).toBe(true);
      for (const group of event.user.groups ?? []) expect(group.startsWith('oidc:'), group).toBe(true);
    }
  });

  it('authorization is unchanged: the impostor named admin gets 403 where the admin is allowed, and the cluster is asked about the mapped ServiceAccount only', async () => {
    const { gateway, oidcProvider, cluster } = platform();
    const token = await oidcProvider.login('mallory');
    const reviews: RecordedRequest[] = [];
    const stop = cluster.emulator.observeRequests((request) => {
      if (request.info.resource === 'subjectaccessreviews') reviews.push(request);
    });
    try {
      const refused = await send(gateway.url, token, 'POST', `${API}/projects`, {
        apiVersion: 'platform.dev/v1alpha1',
        kind: 'Project',
        metadata: { name: 'not-mallorys' },
        spec: {},
      });
      expect(refused.status).toBe(403);
      await send(gateway.url, token, 'GET', `${API}/namespaces/${TEAM_PROJECT}/workspaces`).then(expectStatus(200));
    } finally {
      stop();
    }
    const subjects = reviews.map((request) => JSON.parse(request.body).spec as { user: string; groups: string[] });
    expect(subjects.length).toBeGreaterThan(0);
    for (const subject of subjects) {
      expect(subject.user).toBe(MAPPED_USER);
      expect(subject.groups).toEqual([
        'system:serviceaccounts',
        `system:serviceaccounts:${TEST_NAMESPACE}`,
        'system:authenticated',
      ]);
    }
  });

  it('the fixture user is named with the prefix too (OIDC_USERNAME)', () => {
    expect(OIDC_USERNAME).toBe(`oidc:${OIDC_USER.email}`);
  });
});

describe('issue 38 item 2: OIDC_USERNAME_PREFIX and OIDC_GROUPS_PREFIX', () => {
  const base = { OIDC_ISSUER_URL: 'https://idp.example.test', OIDC_CLIENT_ID: 'web' };
  const config = { apiBaseUrl: 'http://localhost:8080', bridgeUpstreamUrl: undefined };
  const load = (env: Record<string, string>) => loadIdentityConfig({ ...base, ...env }, config).oidc!;

  it('default to `oidc:`; any other prefix is taken as given', () => {
    expect(load({})).toMatchObject({ usernamePrefix: 'oidc:', groupsPrefix: 'oidc:' });
    expect(load({ OIDC_USERNAME_PREFIX: 'corp#', OIDC_GROUPS_PREFIX: 'corp-group:' })).toMatchObject({
      usernamePrefix: 'corp#',
      groupsPrefix: 'corp-group:',
    });
  });

  it.each([
    ['OIDC_USERNAME_PREFIX', 'adm', 'could make a username read as the admin account'],
    ['OIDC_USERNAME_PREFIX', 'a', 'could make a username read as the admin account'],
    ['OIDC_USERNAME_PREFIX', 'system:', 'reserved for Kubernetes'],
    ['OIDC_USERNAME_PREFIX', 'sys', 'reserved for Kubernetes'],
    ['OIDC_USERNAME_PREFIX', 'system:serviceaccount:', 'reserved for Kubernetes'],
    ['OIDC_GROUPS_PREFIX', 'system', 'reserved for Kubernetes'],
    ['OIDC_GROUPS_PREFIX', 'system:x', 'reserved for Kubernetes'],
    ['OIDC_USERNAME_PREFIX', 'a b', 'white space or control characters'],
    ['OIDC_GROUPS_PREFIX', 'x'.repeat(65), 'at most 64 characters'],
  ])('%s=%j stops start-up naming the variable', (variable, value, why) => {
    let error: unknown;
    try {
      load({ [variable]: value });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(variable);
    expect((error as ConfigError).message).toContain(why);
  });

  it('without OIDC_ISSUER_URL, a prefix is a stray setting', () => {
    expect(() => loadIdentityConfig({ OIDC_USERNAME_PREFIX: 'corp:' }, config)).toThrow(ConfigError);
  });
});
