// Issue 44, item 1 (a duration setting with no upper bound emptied the audit trail) and issue 43,
// item 4 (settings read once): every duration and integer setting has a documented range and is
// refused at start outside it, naming the variable; booleans have one vocabulary, true and false.
import { describe, expect, it } from 'vitest';
import {
  parseAdminAccountSettings,
  adminSettingsWarnings,
} from '../../../shared/base/config/admin-account-settings.ts';
import { ConfigError } from '../../../shared/base/config/config-error.ts';
import { loadSettings } from '../../../shared/base/config/settings.ts';
import { loadDevelopmentSettings } from '../../../infra/development/local/local-settings.ts';
import { adminEnv } from '../../support/admin-fixtures.ts';
import { spawnFunctionProcess } from '../../support/function-servers.ts';

/** The ConfigError loading `env` throws (the test fails when it parses). */
function refusal(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('the settings were accepted');
}

/** Node fires a timer set past 2^31-1 ms after 1 ms: the first whole hour past that limit. */
const PAST_NODE_TIMER_LIMIT = `${Math.ceil((2 ** 31 - 1) / 3_600_000)}h`;

describe('Issue 44, item 1: a duration above its documented maximum is refused at start, naming the variable, its bound and an example', () => {
  it.each([
    ['AUDIT_RETENTION', { AUDIT_RETENTION: '9999999999h' }, 'from 24h to 87600h such as 2160h'],
    ['PLAN_APPROVAL_MAX_AGE', { PLAN_APPROVAL_MAX_AGE: '99999999999999h' }, 'from 1ms to 8760h such as 24h'],
    ['RUN_LOG_HEARTBEAT_INTERVAL', { RUN_LOG_HEARTBEAT_INTERVAL: '600h' }, 'from 100ms to 1h such as 15s'],
    [
      'ADMIN_SECRET_POLL_INTERVAL',
      { ADMIN_SECRET_SOURCE: 'file:/etc/platform/admin', ADMIN_SECRET_POLL_INTERVAL: '700h' },
      'from 100ms to 1h such as 30s',
    ],
    ['RUN_HISTORY_RETENTION', { RUN_HISTORY_RETENTION: '876001h' }, 'from 1h to 876000h such as 2160h'],
    ['RUN_LOG_RETENTION', { RUN_LOG_RETENTION: '876001h' }, 'from 1h to 876000h such as 2160h'],
    ['RUN_LOG_COMPACTION_DELAY', { RUN_LOG_COMPACTION_DELAY: '876001h' }, 'from 0s to 876000h such as 1m'],
    ['LOGIN_FAILURE_WINDOW', { LOGIN_FAILURE_WINDOW: '24h1s' }, 'from 1s to 24h such as 5m'],
    ['GATEWAY_CONNECT_TIMEOUT', { GATEWAY_CONNECT_TIMEOUT: '1h1ms' }, 'from 1ms to 1h such as 5s'],
  ])('%s (%j)', (variable, env, range) => {
    const error = refusal(() => loadSettings(env));
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(new RegExp(`^${variable}: ".+" is not a Go duration ${range}$`));
  });

  it('ADMIN_ACCOUNT_TOKEN_TTL=87600000h is refused; longer than 24h is allowed up to a year (8760h)', () => {
    const error = refusal(() => parseAdminAccountSettings({ ADMIN_ACCOUNT_TOKEN_TTL: '87600000h' }));
    expect(error.message).toBe(
      'ADMIN_ACCOUNT_TOKEN_TTL: "87600000h" is not a Go duration from 1s to 8760h such as 24h',
    );
    expect(parseAdminAccountSettings({ ADMIN_ACCOUNT_TOKEN_TTL: '48h' }).tokenTtlSeconds).toBe(172_800);
    expect(parseAdminAccountSettings({ ADMIN_ACCOUNT_TOKEN_TTL: '8760h' }).tokenTtlSeconds).toBe(31_536_000);
  });

  it.each([
    ['RUN_LOG_HEARTBEAT_INTERVAL', {}],
    ['ADMIN_SECRET_POLL_INTERVAL', { ADMIN_SECRET_SOURCE: 'kubernetes:platform/admin' }],
    ['GATEWAY_CONNECT_TIMEOUT', {}],
    ['GATEWAY_RESPONSE_HEADER_TIMEOUT', {}],
    ['LOGIN_FAILURE_WINDOW', {}],
  ])("every timer's setting stays under Node's 2^31-1 ms: %s", (variable, env) => {
    expect(refusal(() => loadSettings({ ...env, [variable]: PAST_NODE_TIMER_LIMIT })).variable).toBe(variable);
  });

  it('each maximum itself is accepted (the bound is inclusive)', () => {
    const settings = loadSettings({
      AUDIT_RETENTION: '87600h',
      PLAN_APPROVAL_MAX_AGE: '8760h',
      RUN_LOG_HEARTBEAT_INTERVAL: '1h',
      ADMIN_SECRET_SOURCE: 'file:/etc/platform/admin',
      ADMIN_SECRET_POLL_INTERVAL: '1h',
    });
    expect(settings.audit.retentionMs).toBe(87_600 * 3_600_000);
    expect(settings.server.planApprovalMaxAgeMs).toBe(8_760 * 3_600_000);
    expect(settings.server.runLogHeartbeatMs).toBe(3_600_000);
    expect(settings.adminSecret.source).toMatchObject({ pollIntervalMs: 3_600_000 });
  });

  it('a real process given AUDIT_RETENTION=9999999999h exits non-zero with the message, before serving', async () => {
    const started = spawnFunctionProcess({ ...adminEnv(), FUNCTION_TARGET: 'login', AUDIT_RETENTION: '9999999999h' });
    await expect(started).rejects.toThrow(
      /exited with 1[\s\S]*refusing to start: AUDIT_RETENTION: \\?"9999999999h\\?" is not a Go duration from 24h to 87600h/,
    );
  });
});

describe('Issue 43, item 4: integers are whole numbers in their range, digits only', () => {
  it.each([
    ['AUDIT_BUFFER_EVENTS', '1e3'],
    ['MAX_REQUEST_BODY_BYTES', '0x100000'],
    ['LOGIN_CLIENT_MAX_FAILURES', '2.0'],
    ['RUN_LOG_MAX_STREAMS_PER_PRINCIPAL', '9007199254740993'],
    ['CONSOLE_PORT', '65536'],
  ])('%s=%s is refused, naming the range and an example', (variable, text) => {
    const error = refusal(() => loadSettings({ [variable]: text }));
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(/is not a whole number from \d+ to \d+ such as \d+$/);
  });
});

describe('Issue 43, item 4: booleans are true or false; the spellings a variable took before are read with a warning naming it', () => {
  it.each([
    ['METRICS', (value: string) => loadSettings({ METRICS: value }).server.metrics],
    ['AUDIT_STDOUT', (value: string) => loadSettings({ AUDIT_STDOUT: value }).audit.stdout],
    [
      'OTEL_SDK_DISABLED',
      (value: string) => loadSettings({ OTEL_SDK_DISABLED: value }).tracing.tracesUrl === undefined,
    ],
    ['ADMIN_ACCOUNT_ENABLED', (value: string) => parseAdminAccountSettings({ ADMIN_ACCOUNT_ENABLED: value }).enabled],
  ])('%s takes true and false, in any case, without a warning', (variable, read) => {
    expect(read('true')).toBe(true);
    expect(read(' FALSE ')).toBe(variable === 'OTEL_SDK_DISABLED');
    expect(loadSettings({ [variable]: 'True' }).warnings).toEqual([]);
  });

  it("LOCAL_HTTPS (local development's, local-settings.ts) takes true and false in any case; 1 is refused, naming it", () => {
    expect(loadDevelopmentSettings({ LOCAL_HTTPS: 'True' })).toMatchObject({ https: true, warnings: [] });
    expect(loadDevelopmentSettings({ LOCAL_HTTPS: ' FALSE ' }).https).toBe(false);
    expect(refusal(() => loadDevelopmentSettings({ LOCAL_HTTPS: '1' })).message).toBe(
      'LOCAL_HTTPS: "1" is not true or false',
    );
  });

  it('METRICS=on and METRICS=off (its former spelling) still work, each with a warning naming the variable', () => {
    const off = loadSettings({ METRICS: 'off' });
    expect(off.server.metrics).toBe(false);
    expect(off.warnings).toEqual([expect.stringMatching(/^METRICS="off" is read as false; write false instead/)]);
    const on = loadSettings({ METRICS: 'ON' });
    expect(on.server.metrics).toBe(true);
    expect(on.warnings).toEqual([expect.stringMatching(/^METRICS="ON" is read as true; write true instead/)]);
  });

  it.each([
    ['yes', true],
    ['1', true],
    ['no', false],
    ['0', false],
  ])(
    'ADMIN_ACCOUNT_ENABLED=%s (a former spelling) is read as %s, with a warning naming the variable',
    (text, value) => {
      const settings = parseAdminAccountSettings({ ADMIN_ACCOUNT_ENABLED: text });
      expect(settings.enabled).toBe(value);
      expect(adminSettingsWarnings(settings)).toContainEqual(
        expect.stringMatching(
          new RegExp(`^ADMIN_ACCOUNT_ENABLED="${text}" is read as ${value}; write ${value} instead`),
        ),
      );
    },
  );

  it('a real process started with METRICS=on starts, and logs a warning naming the variable and its spelling', async () => {
    const started = await spawnFunctionProcess({ ...adminEnv(), FUNCTION_TARGET: 'public-config', METRICS: 'on' });
    try {
      // Log lines are written in batches (at most a second late): wait for the line, not for a time.
      await expect
        .poll(() => started.output(), { timeout: 30_000 })
        .toMatch(/"level":"warn".*METRICS=\\"on\\" is read as true; write true instead/);
    } finally {
      await started.stop();
    }
  });

  it.each([
    ['METRICS', 'yes'],
    ['AUDIT_STDOUT', 'off'],
    ['OTEL_SDK_DISABLED', 'on'],
  ])("%s=%s is refused: only a variable's own former spellings are read", (variable, text) => {
    expect(refusal(() => loadSettings({ [variable]: text })).message).toBe(
      `${variable}: "${text}" is not true or false`,
    );
  });
});
