import { describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, adminEnv } from '../../support/admin-fixtures.ts';
import { capturingLogger, login, startTestGateway } from '../../support/function-servers.ts';
import { redactFields, redactPathAndQuery } from '../../../shared/base/logging/redaction.ts';

describe('Secrets never reach logs: Authorization headers, access_token parameters, cookies and hashes', () => {
  it('no secret appears in any log line of a session of logins and authenticated calls', async () => {
    const logger = capturingLogger();
    const env = adminEnv({ LOG_LEVEL: 'debug' });
    const gateway = await startTestGateway(env, { logger });
    try {
      const { idToken } = (await (await login(gateway.url, ADMIN_PASSWORD)).json()) as { idToken: string };
      await login(gateway.url, 'a-wrong-password-123');
      await fetch(`${gateway.url}/apis/platform.dev/v1alpha1/projects`, {
        headers: { authorization: `Bearer ${idToken}`, cookie: `platform_api_token=${idToken}` },
      });
      await fetch(`${gateway.url}/api/v1alpha1/run-logs/p/r?access_token=${idToken}&follow=true`);
      await fetch(`${gateway.url}/apis/platform.dev/v1alpha1/projects?access_token=${idToken}`);
      const log = logger.lines.join('\n');
      expect(logger.lines.length).toBeGreaterThan(5);
      for (const secret of [
        idToken,
        idToken.split('.')[2]!,
        ADMIN_PASSWORD,
        'a-wrong-password-123',
        env.ADMIN_ACCOUNT_PASSWORD_HASH!,
        env.ADMIN_ACCOUNT_TOKEN_SIGNING_KEY!,
      ]) {
        expect(log).not.toContain(secret);
      }
      expect(log).toContain('access_token=[REDACTED]');
    } finally {
      await gateway.close();
    }
  });

  it('redacts secret-named fields at any depth and headers by name', () => {
    const record = redactFields({
      request: { headers: { authorization: 'Bearer x', cookie: 'c=1', accept: 'json' } },
      passwordHash: '$2a$...',
      nested: [{ idToken: 't' }],
      tokenTtlSeconds: 60,
    });
    expect(record).toEqual({
      request: { headers: { authorization: '[REDACTED]', cookie: '[REDACTED]', accept: 'json' } },
      passwordHash: '[REDACTED]',
      nested: [{ idToken: '[REDACTED]' }],
      tokenTtlSeconds: 60,
    });
  });

  it('keeps harmless query parameters and redacts access_token', () => {
    expect(redactPathAndQuery('/x', new URLSearchParams('follow=true&access_token=abc'))).toBe(
      '/x?follow=true&access_token=[REDACTED]',
    );
  });
});

describe('Issue 44, item 11: a secret name is redacted in every spelling, whatever its separators and case', () => {
  const SECRET = 'the-value-that-must-not-show';
  it.each([
    'signing-key',
    'signing.key',
    'Signing Key',
    'signingKey',
    'SIGNING_KEY',
    'api_key',
    'API-Key',
    'apiKey',
    'x-api-key',
    'client.secret',
    'Client Secret',
    'clientSecret',
    'private_key',
    'Private-Key',
    'access.token',
    'Access Token',
    'refresh-token',
    'db.password',
    'Pass Word',
    'password_hash',
    'Credentials',
    'set-cookie',
    'Authorization',
  ])('%s is redacted, at the top of a log record and nested', (name) => {
    const logger = capturingLogger();
    logger.info('a record', { [name]: SECRET, nested: { [name]: SECRET }, list: [{ [name]: SECRET }] });
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).not.toContain(SECRET);
    expect(JSON.parse(logger.lines[0]!)).toMatchObject({
      [name]: '[REDACTED]',
      nested: { [name]: '[REDACTED]' },
      list: [{ [name]: '[REDACTED]' }],
    });
  });

  it.each(['key', 'keyCount', 'tokenTtlSeconds', 'workspace', 'signing', 'apiVersion', 'monkey'])(
    '%s, no secret name, is kept',
    (name) => {
      const logger = capturingLogger();
      logger.info('a record', { [name]: 'kept' });
      expect(JSON.parse(logger.lines[0]!)).toMatchObject({ [name]: 'kept' });
    },
  );
});
