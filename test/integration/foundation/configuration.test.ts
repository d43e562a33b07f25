import { describe, expect, it } from 'vitest';
import { parseGoDuration } from '../../../shared/base/config/go-duration.ts';
import {
  parseAdminAccountSettings,
  DEV_MODE_PASSWORD_HASH,
} from '../../../shared/base/config/admin-account-settings.ts';
import { loadServerConfig } from '../../../shared/base/config/server-config.ts';
import { ConfigError } from '../../../shared/base/config/config-error.ts';
import bcrypt from 'bcryptjs';
import { getWithToken, login, loginToken, startTestGateway } from '../../support/function-servers.ts';
import { adminHash } from '../../support/admin-fixtures.ts';

describe('ADMIN_ACCOUNT_TOKEN_TTL takes Go duration syntax (default 24h)', () => {
  it.each([
    ['24h', 86_400_000],
    ['1h30m', 5_400_000],
    ['90s', 90_000],
    ['1.5h', 5_400_000],
    ['2h45m30s', 9_930_000],
    ['500ms', 500],
  ])('%s is %i ms', (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it.each(['', '1 day', '24', 'h', '1d', '1h 30m', '--1h'])('"%s" is not a duration', (text) => {
    expect(parseGoDuration(text)).toBeNull();
  });

  it('defaults to 24h', () => {
    expect(parseAdminAccountSettings({ ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: 'k'.repeat(64) }).tokenTtlSeconds).toBe(86_400);
  });

  it('allows longer values and shorter ones such as 1h', () => {
    expect(parseAdminAccountSettings({ ADMIN_ACCOUNT_TOKEN_TTL: '720h' }).tokenTtlSeconds).toBe(2_592_000);
    expect(parseAdminAccountSettings({ ADMIN_ACCOUNT_TOKEN_TTL: '1h' }).tokenTtlSeconds).toBe(3600);
  });
});

describe('Admin account configuration values', () => {
  it('api.adminAccount.enabled defaults to true', () => {
    expect(parseAdminAccountSettings({}).enabled).toBe(true);
  });

  it('an empty signing key is generated: 64 characters, different in every process', () => {
    const first = parseAdminAccountSettings({});
    const second = parseAdminAccountSettings({});
    expect(first.signingKeyGenerated).toBe(true);
    expect(new TextDecoder().decode(first.signingKey)).toHaveLength(64);
    expect(first.signingKeyId).not.toBe(second.signingKeyId);
  });

  it.each([
    ['ADMIN_ACCOUNT_ENABLED', 'sometimes'],
    ['ADMIN_ACCOUNT_TOKEN_TTL', '0s'],
    ['ADMIN_ACCOUNT_TOKEN_TTL', '-1h'],
    ['ADMIN_ACCOUNT_PASSWORD_HASH', '$2a$10$tooshort'],
    ['ADMIN_ACCOUNT_TOKEN_SIGNING_KEY', 'k'.repeat(31)],
  ])('refuses %s=%s with an error naming the variable', (variable, value) => {
    expect(() => parseAdminAccountSettings({ [variable]: value })).toThrow(ConfigError);
    expect(() => parseAdminAccountSettings({ [variable]: value })).toThrow(new RegExp(`^${variable}:`));
  });

  it.each([
    ['PORT', '99999'],
    ['API_GROUP', 'Not A Group'],
    ['API_BASE_URL', 'ftp://x'],
    ['MAX_REQUEST_BODY_BYTES', '-5'],
    ['TRUSTED_PROXY_HOPS', 'two'],
    ['RUN_LOG_HEARTBEAT_INTERVAL', '15'],
    ['RUN_LOG_HEARTBEAT_INTERVAL', '0s'],
    ['RUN_LOG_MAX_STREAMS_PER_PRINCIPAL', '0'],
    ['RUN_LOG_SEND_BUFFER_BYTES', '1kb'],
    ['MAX_WATCHES_PER_PRINCIPAL', '0'],
    ['MAX_WATCHES_PER_PRINCIPAL', 'many'],
    ['GATEWAY_CONNECT_TIMEOUT', '5'],
    ['GATEWAY_CONNECT_TIMEOUT', '0s'],
    ['GATEWAY_RESPONSE_HEADER_TIMEOUT', '-1s'],
    // Node fires a timer past 2^31-1 ms at once: the bound keeps a huge value from meaning "no wait".
    ['GATEWAY_RESPONSE_HEADER_TIMEOUT', '1h1s'],
  ])('refuses %s=%s with an error naming the variable', (variable, value) => {
    expect(() => loadServerConfig({ [variable]: value })).toThrow(new RegExp(`^${variable}:`));
  });

  it('GATEWAY_CONNECT_TIMEOUT (5s) and GATEWAY_RESPONSE_HEADER_TIMEOUT (30s) are Go durations from 1ms to 1h (issue 20)', () => {
    expect(loadServerConfig({}).gatewayTimeouts).toEqual({ connectMs: 5_000, responseHeaderMs: 30_000 });
    expect(
      loadServerConfig({ GATEWAY_CONNECT_TIMEOUT: '250ms', GATEWAY_RESPONSE_HEADER_TIMEOUT: '1h' }).gatewayTimeouts,
    ).toEqual({ connectMs: 250, responseHeaderMs: 3_600_000 });
    expect(loadServerConfig({ GATEWAY_CONNECT_TIMEOUT: '1ms' }).gatewayTimeouts.connectMs).toBe(1);
    expect(() => loadServerConfig({ GATEWAY_CONNECT_TIMEOUT: '5' })).toThrow(
      'GATEWAY_CONNECT_TIMEOUT: "5" is not a Go duration from 1ms to 1h such as 5s',
    );
  });

  it('RUN_LOG_HEARTBEAT_INTERVAL is a Go duration, 15s by default', () => {
    expect(loadServerConfig({}).runLogHeartbeatMs).toBe(15_000);
    expect(loadServerConfig({ RUN_LOG_HEARTBEAT_INTERVAL: '1m30s' }).runLogHeartbeatMs).toBe(90_000);
  });

  it('RUN_LOG_MAX_STREAMS_PER_PRINCIPAL is 100 and RUN_LOG_SEND_BUFFER_BYTES 256 KiB by default', () => {
    expect(loadServerConfig({})).toMatchObject({ runLogMaxStreamsPerPrincipal: 100, runLogSendBufferBytes: 262_144 });
    expect(
      loadServerConfig({ RUN_LOG_MAX_STREAMS_PER_PRINCIPAL: '5', RUN_LOG_SEND_BUFFER_BYTES: '65536' }),
    ).toMatchObject({ runLogMaxStreamsPerPrincipal: 5, runLogSendBufferBytes: 65_536 });
  });

  it('MAX_WATCHES_PER_PRINCIPAL (issue 20) is 100 by default and settable', () => {
    expect(loadServerConfig({}).maxWatchesPerPrincipal).toBe(100);
    expect(loadServerConfig({ MAX_WATCHES_PER_PRINCIPAL: '7' }).maxWatchesPerPrincipal).toBe(7);
  });

  it('API_BASE_URL defaults to http://localhost:$PORT and API_GROUP to platform.dev', () => {
    const config = loadServerConfig({ PORT: '9090' });
    expect(config.apiBaseUrl).toBe('http://localhost:9090');
    expect(config.apiGroup).toBe('platform.dev');
  });
});

describe('Local development mode: admin enabled with a fixed known hash, key generated in memory, when no admin settings are given', () => {
  it('is on with no admin settings and NODE_ENV not production', () => {
    expect(loadServerConfig({}).devMode).toBe(true);
  });

  it('is off in production and off as soon as any admin setting is given', () => {
    expect(loadServerConfig({ NODE_ENV: 'production' }).devMode).toBe(false);
    expect(loadServerConfig({ ADMIN_ACCOUNT_ENABLED: 'true' }).devMode).toBe(false);
  });

  it('the fixed hash is a $2a$ cost-10 hash of "admin"', () => {
    expect(DEV_MODE_PASSWORD_HASH.startsWith('$2a$10$')).toBe(true);
    expect(bcrypt.compareSync('admin', DEV_MODE_PASSWORD_HASH)).toBe(true);
  });

  it('logs in with password "admin"', async () => {
    const gateway = await startTestGateway({});
    try {
      const token = await loginToken(gateway.url, 'admin');
      expect((await getWithToken(gateway.url, '/apis/platform.dev/v1alpha1/projects', token)).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });

  it('in production, no settings means no password can log in (never the development password)', async () => {
    const gateway = await startTestGateway({ NODE_ENV: 'production' });
    try {
      expect((await login(gateway.url, 'admin')).status).toBe(403);
    } finally {
      await gateway.close();
    }
  });

  it('a given hash is used as is', async () => {
    const gateway = await startTestGateway({
      NODE_ENV: 'production',
      ADMIN_ACCOUNT_PASSWORD_HASH: adminHash('s3cret'),
      ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: 'q'.repeat(64),
    });
    try {
      expect((await login(gateway.url, 's3cret')).status).toBe(200);
      expect((await login(gateway.url, 'admin')).status).toBe(403);
    } finally {
      await gateway.close();
    }
  });
});

describe('PROJECT_SECRETS_CLUSTER_ROLE: the API server binds it to its own ServiceAccount in each Project namespace', () => {
  it('is off without it (local mode, a cluster-admin kubeconfig): no binding is made', () => {
    expect(loadServerConfig({}).projectSecretsAccess).toBeUndefined();
  });

  it("names the API server's ServiceAccount from API_SERVICE_ACCOUNT and POD_NAMESPACE", () => {
    const config = loadServerConfig({
      PROJECT_SECRETS_CLUSTER_ROLE: 'platform-project-secrets',
      API_SERVICE_ACCOUNT: 'platform-api',
      POD_NAMESPACE: 'platform-system',
    });
    expect(config.projectSecretsAccess).toEqual({
      clusterRole: 'platform-project-secrets',
      serviceAccount: { name: 'platform-api', namespace: 'platform-system' },
    });
  });

  it('refuses to start when the ServiceAccount to bind is not named', () => {
    const missing = (env: Record<string, string>) => {
      try {
        loadServerConfig({ PROJECT_SECRETS_CLUSTER_ROLE: 'platform-project-secrets', ...env });
      } catch (error) {
        return (error as ConfigError).variable;
      }
      return undefined;
    };
    expect(missing({ POD_NAMESPACE: 'platform-system' })).toBe('API_SERVICE_ACCOUNT');
    expect(missing({ API_SERVICE_ACCOUNT: 'platform-api' })).toBe('POD_NAMESPACE');
  });
});

describe('Issue 46: PROJECT_TOKENS_CLUSTER_ROLE takes effect beside PROJECT_SECRETS_CLUSTER_ROLE, or is refused at start', () => {
  const serverAccount = { API_SERVICE_ACCOUNT: 'platform-api', POD_NAMESPACE: 'platform-system' };
  const refusal = (env: Record<string, string>) => {
    try {
      loadServerConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) return error.variable;
      throw error;
    }
    return undefined;
  };

  it("is the ClusterRole the server binds to itself with a Project's first token", () => {
    const config = loadServerConfig({
      PROJECT_SECRETS_CLUSTER_ROLE: 'platform-project-secrets',
      PROJECT_TOKENS_CLUSTER_ROLE: 'platform-project-tokens',
      ...serverAccount,
    });
    expect(config.projectSecretsAccess?.tokensClusterRole).toBe('platform-project-tokens');
  });

  it('is refused, naming it, without PROJECT_SECRETS_CLUSTER_ROLE (it would be ignored) or when it is no ClusterRole name', () => {
    expect(refusal({ PROJECT_TOKENS_CLUSTER_ROLE: 'platform-project-tokens', ...serverAccount })).toBe(
      'PROJECT_TOKENS_CLUSTER_ROLE',
    );
    for (const name of ['Platform Tokens', 'a/b', 'x'.repeat(254)])
      expect(
        refusal({ PROJECT_SECRETS_CLUSTER_ROLE: 'secrets', PROJECT_TOKENS_CLUSTER_ROLE: name, ...serverAccount }),
        name,
      ).toBe('PROJECT_TOKENS_CLUSTER_ROLE');
  });
});
