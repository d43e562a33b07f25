// Admin and OIDC as independent switches, the public config, and the identity environment variables.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../../knative/node-http/running-server.ts';
import { ConfigError } from '../../../shared/base/config/config-error.ts';
import { loadIdentityConfig, publicOidcConfig } from '../../../shared/base/config/identity-config.ts';
import { ADMIN_PASSWORD, adminEnv } from '../../support/admin-fixtures.ts';
import { getWithToken, login, startTestGateway } from '../../support/function-servers.ts';
import { startIdentityCluster, type IdentityCluster } from '../../support/identity-cluster.ts';
import { OIDC_CLIENTS, startOidcProvider, type TestOidcProvider } from '../../support/oidc-provider.ts';

const PUBLIC_CONFIG = '/api/v1alpha1/system/public-config';
const INTERNAL = '/internal/ping';

describe('Admin and OIDC are independent switches', () => {
  let cluster: IdentityCluster;
  let provider: TestOidcProvider & { close(): Promise<void> };
  let oidcToken: string;

  beforeAll(async () => {
    cluster = await startIdentityCluster();
    provider = await startOidcProvider([{ sub: 'alice', email: 'alice@example.com', groups: ['platform-eng'] }]);
    await cluster.createServiceAccount('platform-admin', { 'platform.dev/claim.groups': 'platform-eng' });
    await cluster.allowPaths('platform-admin', ['/internal/*'], ['get']);
    oidcToken = await provider.login('alice');
  });
  afterAll(async () => {
    await provider.close();
    await cluster.close();
  });

  const oidcVariables = () => ({ OIDC_ISSUER_URL: provider.issuer, OIDC_CLIENT_ID: OIDC_CLIENTS.web });

  async function withGateway(
    env: Record<string, string>,
    check: (gateway: RunningServer) => Promise<void>,
  ): Promise<void> {
    const gateway = await startTestGateway(env, { kubeConfig: cluster.emulator.kubeConfig() });
    try {
      await check(gateway);
    } finally {
      await gateway.close();
    }
  }

  async function publicConfig(gateway: RunningServer): Promise<Record<string, unknown>> {
    return (await (await fetch(`${gateway.url}${PUBLIC_CONFIG}`)).json()) as Record<string, unknown>;
  }

  it.each([
    ['admin on, OIDC on', 'true', true],
    ['admin off, OIDC on', 'false', true],
    ['admin on, OIDC off', 'true', false],
    ['admin off, OIDC off', 'false', false],
  ])('%s: each works exactly when its own switch is on', async (_name, adminEnabled, oidcOn) => {
    await withGateway(
      adminEnv({ ADMIN_ACCOUNT_ENABLED: adminEnabled, ...(oidcOn ? oidcVariables() : {}) }),
      async (gateway) => {
        const adminLogin = await login(gateway.url, ADMIN_PASSWORD);
        expect(adminLogin.status).toBe(adminEnabled === 'true' ? 200 : 403);
        if (adminEnabled === 'true') {
          const { idToken } = (await adminLogin.json()) as { idToken: string };
          expect((await getWithToken(gateway.url, INTERNAL, idToken)).status).toBe(404);
        }
        // With OIDC off, the provider's tokens belong to no trusted issuer.
        expect((await getWithToken(gateway.url, INTERNAL, oidcToken)).status).toBe(oidcOn ? 404 : 401);
        const config = await publicConfig(gateway);
        expect(config.adminAccountEnabled).toBe(adminEnabled === 'true');
        expect('oidcConfig' in config).toBe(oidcOn);
      },
    );
  });

  it('public config: oidcConfig has issuerUrl, clientId, cliClientId and scopes openid, profile, email plus the additional ones', async () => {
    const env = adminEnv({
      ...oidcVariables(),
      OIDC_CLI_CLIENT_ID: OIDC_CLIENTS.cli,
      OIDC_ADDITIONAL_SCOPES: 'groups offline_access',
    });
    await withGateway(env, async (gateway) => {
      expect(await publicConfig(gateway)).toEqual({
        adminAccountEnabled: true,
        oidcConfig: {
          issuerUrl: provider.issuer,
          clientId: OIDC_CLIENTS.web,
          cliClientId: OIDC_CLIENTS.cli,
          scopes: ['openid', 'profile', 'email', 'groups', 'offline_access'],
        },
      });
    });
  });
});

describe('OIDC configuration values', () => {
  const base = { apiBaseUrl: 'https://platform.example.test', bridgeUpstreamUrl: undefined };

  it('OIDC is off without OIDC_ISSUER_URL', () => {
    expect(loadIdentityConfig({}, base).oidc).toBeUndefined();
  });

  it('OIDC_CLI_CLIENT_ID defaults to OIDC_CLIENT_ID, OIDC_USERNAME_CLAIM to sub; scopes accept commas or spaces', () => {
    const oidc = loadIdentityConfig(
      {
        OIDC_ISSUER_URL: 'https://idp.example.test',
        OIDC_CLIENT_ID: 'web',
        OIDC_ADDITIONAL_SCOPES: 'groups, offline_access email',
      },
      base,
    ).oidc;
    expect(oidc).toMatchObject({
      clientId: 'web',
      cliClientId: 'web',
      usernameClaim: 'sub',
      additionalScopes: ['groups', 'offline_access'],
    });
    expect(publicOidcConfig(oidc)?.scopes).toEqual(['openid', 'profile', 'email', 'groups', 'offline_access']);
  });

  it('SERVICE_ACCOUNT_ISSUERS is a comma-separated list; unset means "ask the cluster"', () => {
    expect(
      loadIdentityConfig({ SERVICE_ACCOUNT_ISSUERS: 'https://a.example.test, https://b.example.test' }, base)
        .serviceAccountIssuers,
    ).toEqual(['https://a.example.test', 'https://b.example.test']);
    expect(loadIdentityConfig({}, base).serviceAccountIssuers).toBeUndefined();
  });

  it.each([
    ['OIDC_ISSUER_URL', { OIDC_ISSUER_URL: 'not a url', OIDC_CLIENT_ID: 'web' }],
    ['OIDC_ISSUER_URL', { OIDC_ISSUER_URL: 'ftp://idp.example.test', OIDC_CLIENT_ID: 'web' }],
    ['OIDC_ISSUER_URL', { OIDC_ISSUER_URL: 'https://idp.example.test?tenant=1', OIDC_CLIENT_ID: 'web' }],
    ['OIDC_ISSUER_URL', { OIDC_ISSUER_URL: 'https://platform.example.test/bridge', OIDC_CLIENT_ID: 'web' }],
    ['OIDC_CLIENT_ID', { OIDC_ISSUER_URL: 'https://idp.example.test' }],
    ['OIDC_CLIENT_ID', { OIDC_CLIENT_ID: 'web' }],
    [
      'OIDC_ADDITIONAL_SCOPES',
      { OIDC_ISSUER_URL: 'https://idp.example.test', OIDC_CLIENT_ID: 'web', OIDC_ADDITIONAL_SCOPES: 'groups "quoted"' },
    ],
    [
      'OIDC_USERNAME_CLAIM',
      { OIDC_ISSUER_URL: 'https://idp.example.test', OIDC_CLIENT_ID: 'web', OIDC_USERNAME_CLAIM: 'e mail' },
    ],
    ['SERVICE_ACCOUNT_ISSUERS', { SERVICE_ACCOUNT_ISSUERS: ' , ' }],
  ])('refuses a bad %s with an error naming the variable (%j)', (variable, env) => {
    expect(() => loadIdentityConfig(env, base)).toThrow(ConfigError);
    expect(() => loadIdentityConfig(env, base)).toThrow(new RegExp(`^${variable}:`));
  });

  it('the server refuses to start on a bad value', async () => {
    await expect(startTestGateway(adminEnv({ OIDC_ISSUER_URL: 'https://idp.example.test' }))).rejects.toThrow(
      /^OIDC_CLIENT_ID:/,
    );
  });
});
