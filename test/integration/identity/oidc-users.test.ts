// OIDC users: ID tokens from a real OpenID Provider (Authorization Code + PKCE), verified against
// its JWKS, mapped to ServiceAccounts by annotations, then authorized by SubjectAccessReview.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningServer } from '../../../knative/node-http/running-server.ts';
import { adminEnv } from '../../support/admin-fixtures.ts';
import { expectStatus } from '../../support/error-responses.ts';
import { getWithToken, startTestGateway } from '../../support/function-servers.ts';
import { startIdentityCluster, type IdentityCluster } from '../../support/identity-cluster.ts';
import { OIDC_CLIENTS, startOidcProvider, type TestOidcProvider } from '../../support/oidc-provider.ts';

const INTERNAL = '/internal/workspaces/sync';
const USERS = [
  { sub: 'alice', email: 'alice@example.com', groups: ['platform-eng'] },
  { sub: 'bob', email: 'bob@example.com', groups: ['developers'] },
  { sub: 'carol', email: 'carol@example.com', groups: [] },
  { sub: 'dave', email: 'dave@example.com', groups: ['auditors'] },
  { sub: 'erin', email: 'erin@example.com', groups: ['developers'] },
];

function oidcEnv(provider: TestOidcProvider, overrides: Record<string, string> = {}): Record<string, string> {
  return adminEnv({
    OIDC_ISSUER_URL: provider.issuer,
    OIDC_CLIENT_ID: OIDC_CLIENTS.web,
    OIDC_CLI_CLIENT_ID: OIDC_CLIENTS.cli,
    OIDC_ADDITIONAL_SCOPES: 'groups',
    OIDC_USERNAME_CLAIM: 'email',
    ...overrides,
  });
}

/** What one describe's tests talk to; call the getters inside tests. */
interface OidcSetting {
  cluster: () => IdentityCluster;
  provider: () => TestOidcProvider;
  gateway: () => RunningServer;
  /** Starts the gateway (done in beforeAll unless `gatewayInTest`); it is closed after the describe. */
  startGateway: () => Promise<RunningServer>;
}

/**
 * Starts an identity cluster with the ServiceAccounts `setUpAccounts` creates, the OpenID Provider with USERS,
 * and a gateway on both (oidcEnv) before the describe's tests, and stops them after. With `gatewayInTest`
 * the test starts the gateway itself, to change the provider before the gateway first sees it.
 */
function useOidcSetting(
  setUpAccounts: (cluster: IdentityCluster) => Promise<void>,
  { gatewayInTest = false } = {},
): OidcSetting {
  let cluster: IdentityCluster | undefined;
  let provider: (TestOidcProvider & { close(): Promise<void> }) | undefined;
  let gateway: RunningServer | undefined;
  const startGateway = async (): Promise<RunningServer> => {
    gateway = await startTestGateway(oidcEnv(provider!), { kubeConfig: cluster!.emulator.kubeConfig() });
    return gateway;
  };
  beforeAll(async () => {
    cluster = await startIdentityCluster();
    provider = await startOidcProvider(USERS);
    await setUpAccounts(cluster);
    if (!gatewayInTest) await startGateway();
  });
  afterAll(async () => {
    await gateway?.close();
    await provider?.close();
    await cluster?.close();
  });
  return { cluster: () => cluster!, provider: () => provider!, gateway: () => gateway!, startGateway };
}

// The internal route answers 404 (no such internal route yet) only after authorization allowed the call.
async function expectAllowed(response: Response): Promise<void> {
  expect(response.status, await response.clone().text()).toBe(404);
  expect(((await response.json()) as { reason: string }).reason).toBe('NotFound');
}

describe('OIDC user: JWT from an external identity provider, verified against its JWKS; login uses Authorization Code with PKCE', () => {
  const { provider, gateway } = useOidcSetting(async (identityCluster) => {
    await identityCluster.createServiceAccount('platform-admin', {
      'platform.dev/claims': JSON.stringify({ groups: ['platform-eng'] }),
    });
    await identityCluster.allowPaths('platform-admin', ['/internal/*'], ['*']);
  });

  it('a mapped user is allowed (platform-eng → platform-admin)', async () => {
    await expectAllowed(await getWithToken(gateway().url, INTERNAL, await provider().login('alice')));
  });

  it('accepts the CLI client ID as audience too', async () => {
    await expectAllowed(await getWithToken(gateway().url, INTERNAL, await provider().login('alice', OIDC_CLIENTS.cli)));
  });

  it('an unmapped user gets 403 naming the user', async () => {
    const body = await expectStatus(
      await getWithToken(gateway().url, INTERNAL, await provider().login('carol')),
      403,
      'Forbidden',
    );
    expect(body.error).toContain('carol@example.com');
  });

  it('a token for another audience gets 401', async () => {
    const body = await expectStatus(
      await getWithToken(gateway().url, INTERNAL, await provider().login('alice', OIDC_CLIENTS.other)),
      401,
      'InvalidToken',
    );
    expect(body.error).toContain('aud');
  });

  it('an expired token gets 401', async () => {
    // The provider (in this process) issues the token a minute ago with a 1-second lifetime: only
    // its Date is moved back, so it expired 59 s before the gateway sees it, with no wait.
    provider().idTokenTtlSeconds = 1;
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() - 60_000);
    const token = await provider()
      .login('alice')
      .finally(() => {
        vi.useRealTimers();
        provider().idTokenTtlSeconds = 3600;
      });
    const body = await expectStatus(await getWithToken(gateway().url, INTERNAL, token), 401, 'InvalidToken');
    expect(body.error).toBe('token has expired');
  });

  it('a token with a forged signature gets 401', async () => {
    const token = await provider().login('alice');
    const [header, payload] = token.split('.');
    const other = (await provider().login('carol')).split('.')[2];
    await expectStatus(
      await getWithToken(gateway().url, INTERNAL, `${header}.${payload}.${other}`),
      401,
      'InvalidToken',
    );
  });

  it('keeps working with the keys it holds when the provider goes down', async () => {
    // This test fetches the keys itself (a first token verified), whatever ran before it.
    await expectAllowed(await getWithToken(gateway().url, INTERNAL, await provider().login('alice')));
    const unused = await provider().login('alice');
    await provider().stop();
    try {
      await expectAllowed(await getWithToken(gateway().url, INTERNAL, unused));
    } finally {
      await provider().start();
    }
  });
});

describe('Claims map to ServiceAccounts through annotations', () => {
  const { cluster, provider, gateway } = useOidcSetting(async (identityCluster) => {
    await identityCluster.createServiceAccount('developers', { 'platform.dev/claims': '{"groups": "developers"}' });
    await identityCluster.allowPaths('developers', ['/internal/builds', '/internal/builds/*'], ['get']);
    await identityCluster.createServiceAccount('by-email', {
      'platform.dev/claim.email': 'nobody@example.com, carol@example.com',
    });
    await identityCluster.allowPaths('by-email', ['/internal/*'], ['get']);
    await identityCluster.createServiceAccount('auditors-without-rbac', { 'platform.dev/claim.groups': 'auditors' });
    await identityCluster.createServiceAccount('late', {});
    await identityCluster.allowPaths('late', ['/internal/*'], ['get']);
  });

  it('<api_group>/claims (JSON object) matches an element of a list claim', async () => {
    await expectAllowed(await getWithToken(gateway().url, '/internal/builds/42', await provider().login('bob')));
  });

  it('<api_group>/claim.<name> (comma-separated list) matches a string claim', async () => {
    await expectAllowed(await getWithToken(gateway().url, '/internal/anything', await provider().login('carol')));
  });

  it("the mapped ServiceAccount's RBAC decides: a path or verb it lacks is 403", async () => {
    const token = await provider().login('bob');
    await expectStatus(await getWithToken(gateway().url, '/internal/secrets', token), 403, 'Forbidden');
    await expectStatus(
      await fetch(`${gateway().url}/internal/builds`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
      }),
      403,
      'Forbidden',
    );
  });

  it('a mapped ServiceAccount without any RoleBinding gives 403, naming the ServiceAccount', async () => {
    const body = await expectStatus(
      await getWithToken(gateway().url, '/internal/anything', await provider().login('dave')),
      403,
      'Forbidden',
    );
    expect(body.error).toContain('platform-system/auditors-without-rbac');
  });

  it('a changed annotation takes effect without a restart (watched, not listed per request)', async () => {
    const token = await provider().login('erin');
    await expectStatus(await getWithToken(gateway().url, '/internal/anything', token), 403, 'Forbidden');
    const requestsBefore = cluster().emulator.counters.requests;
    await cluster().setAnnotations('late', { 'platform.dev/claim.email': 'erin@example.com' });
    await expect
      .poll(async () => (await getWithToken(gateway().url, '/internal/elsewhere', token)).status, { timeout: 5_000 })
      .toBe(404);
    // Only the replace, its read and one SubjectAccessReview per new attribute set reached the cluster: no listing.
    expect(cluster().emulator.counters.requests - requestsBefore).toBeLessThan(8);
  });
});

describe('Every OIDC request goes through SubjectAccessReview, cached', () => {
  const { cluster, provider, gateway } = useOidcSetting(async (identityCluster) => {
    await identityCluster.createServiceAccount('platform-admin', { 'platform.dev/claim.groups': 'platform-eng' });
    await identityCluster.allowPaths('platform-admin', ['/internal/*'], ['get']);
  });

  it('1,000 requests of one user cost one SubjectAccessReview and no TokenReview', async () => {
    const token = await provider().login('alice');
    const before = { ...cluster().emulator.counters };
    for (let batch = 0; batch < 20; batch++) {
      const responses = await Promise.all(
        Array.from({ length: 50 }, () => getWithToken(gateway().url, INTERNAL, token)),
      );
      expect(responses.map((response) => response.status)).toEqual(Array(50).fill(404));
    }
    expect(cluster().emulator.counters.subjectAccessReviews - before.subjectAccessReviews).toBe(1);
    expect(cluster().emulator.counters.tokenReviews - before.tokenReviews).toBe(0);
  });
});

describe("The Kubernetes API down for an OIDC user's review: 503, never 401 and never an allow", () => {
  // Its own cluster: the test takes it down, which no other test may see.
  const { cluster, provider, gateway } = useOidcSetting(async (identityCluster) => {
    await identityCluster.createServiceAccount('platform-admin', { 'platform.dev/claim.groups': 'platform-eng' });
    await identityCluster.allowPaths('platform-admin', ['/internal/*'], ['get']);
  });

  it('the Kubernetes API down: 503 with Retry-After, never 401 and never an allow', async () => {
    const token = await provider().login('alice');
    await cluster().close();
    const response = await getWithToken(gateway().url, '/internal/not-yet-reviewed', token);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    await expectStatus(response, 503, 'KubernetesUnavailable');
  });
});

describe('The identity provider may be down at start-up', () => {
  const { provider, startGateway } = useOidcSetting(
    async (identityCluster) => {
      await identityCluster.createServiceAccount('platform-admin', { 'platform.dev/claim.groups': 'platform-eng' });
      await identityCluster.allowPaths('platform-admin', ['/internal/*'], ['get']);
    },
    { gatewayInTest: true },
  );

  it('starts without it and answers 503 with Retry-After while no keys can be had', async () => {
    const token = await provider().login('alice');
    await provider().stop();
    const gateway = await startGateway();
    const response = await getWithToken(gateway.url, INTERNAL, token);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    await expectStatus(response, 503, 'IdentityProviderUnavailable');
    await provider().start();
  });
});
