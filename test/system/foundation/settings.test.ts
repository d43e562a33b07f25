// Issue 9, item 2, "settings parsed once": the whole environment is parsed in one place
// (shared/config, loadSettings) into one typed, frozen configuration that the entry points hand
// down; nothing else reads the environment.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../shared/base/config/config-error.ts';
import { loadSettings } from '../../../shared/base/config/settings.ts';
import { DEFAULT_LOCAL_DATA_DIR, loadDevelopmentSettings } from '../../../infra/development/local/local-settings.ts';
import { DEFAULT_POLL_INTERVAL_MS } from '../../../shared/base/config/admin-secret-settings.ts';
import { REPO_ROOT } from '../../support/function-servers.ts';

/** The variable a ConfigError names, or undefined when the settings parse. */
function refusedVariable(env: Record<string, string>): string | undefined {
  try {
    loadSettings(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message.startsWith(`${(error as ConfigError).variable}: `)).toBe(true);
    return (error as ConfigError).variable;
  }
  return undefined;
}

describe('Settings are parsed once, into one typed configuration: its sections and their defaults', () => {
  const settings = loadSettings({});

  it('server: port 8080, API group platform.dev, base URL http://localhost:$PORT, log level info, run-log limits', () => {
    expect(settings.server).toMatchObject({
      port: 8080,
      apiGroup: 'platform.dev',
      apiBaseUrl: 'http://localhost:8080',
      devMode: true,
      production: false,
      maxBodyBytes: 1024 * 1024,
      maxHeaderBytes: 16 * 1024,
      trustedProxyHops: 0,
      bridgeUpstreamUrl: undefined,
      gatewayTimeouts: { connectMs: 5_000, responseHeaderMs: 30_000 },
      runLogHeartbeatMs: 15_000,
      runLogMaxStreamsPerPrincipal: 100,
      runLogSendBufferBytes: 256 * 1024,
      maxWatchesPerPrincipal: 100,
      planApprovalMaxAgeMs: 24 * 3_600_000,
      projectSecretsAccess: undefined,
      logLevel: 'info',
    });
  });

  it('issue 36, login: a 5-minute window, 5 failures per client, 20 for the account, IPv6 clients by their /64', () => {
    expect(settings.login).toEqual({
      windowMs: 300_000,
      clientMaxFailures: 5,
      accountMaxFailures: 20,
      ipv6PrefixLength: 64,
    });
    expect(
      loadSettings({
        LOGIN_FAILURE_WINDOW: '90s',
        LOGIN_CLIENT_MAX_FAILURES: '3',
        LOGIN_ACCOUNT_MAX_FAILURES: '50',
        LOGIN_IPV6_PREFIX_LENGTH: '56',
      }).login,
    ).toEqual({ windowMs: 90_000, clientMaxFailures: 3, accountMaxFailures: 50, ipv6PrefixLength: 56 });
  });

  it('PLAN_APPROVAL_MAX_AGE (issue 37): a Go duration, 24h by default', () => {
    expect(loadSettings({ PLAN_APPROVAL_MAX_AGE: '1h30m' }).server.planApprovalMaxAgeMs).toBe(5_400_000);
  });

  it('Issue 48, item 2: RUN_PLAN_JSON_MAX_BYTES is MAX_REQUEST_BODY_BYTES by default, settable up to it', () => {
    expect(settings.server.runPlanJsonMaxBytes).toBe(1024 * 1024);
    expect(loadSettings({ MAX_REQUEST_BODY_BYTES: '8388608' }).server.runPlanJsonMaxBytes).toBe(8 * 1024 * 1024);
    expect(
      loadSettings({ MAX_REQUEST_BODY_BYTES: '8388608', RUN_PLAN_JSON_MAX_BYTES: '4194304' }).server
        .runPlanJsonMaxBytes,
    ).toBe(4 * 1024 * 1024);
  });

  it('DATABASE_URL has one field, database.url (the server section no longer repeats it)', () => {
    expect(settings.database.url).toBeUndefined();
    expect(loadSettings({ DATABASE_URL: ' postgres://db.internal/platform ' }).database.url).toBe(
      'postgres://db.internal/platform',
    );
    expect(loadSettings({ DATABASE_URL: '  ' }).database.url).toBeUndefined();
    expect(loadSettings({ DATABASE_URL: 'postgresql://u:p@127.0.0.1:5432/db?sslmode=require' }).database.url).toBe(
      'postgresql://u:p@127.0.0.1:5432/db?sslmode=require',
    );
    expect(Object.keys(settings.server)).not.toContain('databaseUrl');
  });

  it('issue 35: run history: runs kept 365 days, logs 90 days, a finished log compacted after a minute; Go durations', () => {
    expect(settings.runHistory).toEqual({
      retentionMs: 365 * 24 * 3_600_000,
      logRetentionMs: 90 * 24 * 3_600_000,
      compactionDelayMs: 60_000,
    });
    expect(
      loadSettings({ RUN_HISTORY_RETENTION: ' 720h ', RUN_LOG_RETENTION: '1h30m', RUN_LOG_COMPACTION_DELAY: '0s' })
        .runHistory,
    ).toEqual({ retentionMs: 720 * 3_600_000, logRetentionMs: 5_400_000, compactionDelayMs: 0 });
  });

  it('admin secret: the environment variables, captured once, unless ADMIN_SECRET_SOURCE names another source', () => {
    expect(settings.adminSecret.source).toEqual({ kind: 'environment', allKeysRequired: false });
    const given = loadSettings({ ADMIN_ACCOUNT_ENABLED: 'false', ADMIN_ACCOUNT_TOKEN_TTL: '1h' }).adminSecret
      .environmentValues;
    expect(given).toEqual({
      ADMIN_ACCOUNT_ENABLED: 'false',
      ADMIN_ACCOUNT_PASSWORD_HASH: undefined,
      ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: undefined,
      ADMIN_ACCOUNT_TOKEN_TTL: '1h',
    });
    expect(loadSettings({ ADMIN_SECRET_SOURCE: 'env' }).adminSecret.source).toEqual({
      kind: 'environment',
      allKeysRequired: true,
    });
  });

  it('admin secret: each followed source with its own default poll interval, or ADMIN_SECRET_POLL_INTERVAL', () => {
    expect(loadSettings({ ADMIN_SECRET_SOURCE: 'file:/etc/admin' }).adminSecret.source).toEqual({
      kind: 'file',
      folder: '/etc/admin',
      pollIntervalMs: DEFAULT_POLL_INTERVAL_MS.file,
    });
    expect(loadSettings({ ADMIN_SECRET_SOURCE: 'kubernetes:platform/admin' }).adminSecret.source).toEqual({
      kind: 'kubernetes',
      namespace: 'platform',
      name: 'admin',
      pollIntervalMs: 30_000,
    });
    expect(
      loadSettings({ ADMIN_SECRET_SOURCE: 'aws-secretsmanager:platform/admin', ADMIN_SECRET_POLL_INTERVAL: '1m' })
        .adminSecret.source,
    ).toEqual({ kind: 'aws-secretsmanager', secretId: 'platform/admin', pollIntervalMs: 60_000 });
    // Nothing polls the environment, so its interval is not read then (as before).
    expect(refusedVariable({ ADMIN_SECRET_POLL_INTERVAL: 'soon' })).toBeUndefined();
  });

  it('identity: OIDC off and the ServiceAccount issuers asked of the cluster', () => {
    expect(settings.identity.oidc).toBeUndefined();
    expect(settings.identity.serviceAccountIssuers).toBeUndefined();
    const oidc = loadSettings({
      API_BASE_URL: 'https://platform.example.test',
      BRIDGE_UPSTREAM_URL: 'http://bridge.svc:5556',
      OIDC_ISSUER_URL: 'https://platform.example.test/bridge',
      OIDC_CLIENT_ID: 'web',
    }).identity.oidc;
    expect(oidc?.fetchUrlFor('https://platform.example.test/bridge/keys')).toBe('http://bridge.svc:5556/bridge/keys');
  });

  it('cluster: KUBECONFIG as given, else in-cluster when KUBERNETES_SERVICE_HOST is set', () => {
    expect(settings.cluster).toEqual({ kubeconfig: undefined, inCluster: false });
    expect(loadSettings({ KUBECONFIG: '/a/config:/b/config', KUBERNETES_SERVICE_HOST: '10.0.0.1' }).cluster).toEqual({
      kubeconfig: '/a/config:/b/config',
      inCluster: true,
    });
  });

  it('TLS: plain HTTP without TLS_CERT_FILE and TLS_KEY_FILE, both files with them', () => {
    expect(settings.tls.files).toBeUndefined();
    expect(loadSettings({ TLS_CERT_FILE: '/tls/tls.crt', TLS_KEY_FILE: '/tls/tls.key' }).tls.files).toEqual({
      certFile: '/tls/tls.crt',
      keyFile: '/tls/tls.key',
    });
  });

  it("local development's settings: the checkout's .data unless LOCAL_DATA_DIR (resolved), HTTPS only with LOCAL_HTTPS=true, the development controller unless LOCAL_CONTROLLER=false", () => {
    expect(loadDevelopmentSettings({})).toEqual({
      dataDir: DEFAULT_LOCAL_DATA_DIR,
      https: false,
      controller: true,
      bindAddress: '127.0.0.1',
      warnings: [],
    });
    expect(DEFAULT_LOCAL_DATA_DIR).toBe(join(REPO_ROOT, '.data'));
    expect(
      loadDevelopmentSettings({ LOCAL_DATA_DIR: 'state', LOCAL_HTTPS: 'true', LOCAL_CONTROLLER: 'false' }),
    ).toEqual({ dataDir: resolve('state'), https: true, controller: false, bindAddress: '127.0.0.1', warnings: [] });
  });

  it.each([
    ['LOCAL_HTTPS', { LOCAL_HTTPS: 'yes' }],
    ['LOCAL_CONTROLLER', { LOCAL_CONTROLLER: 'off' }],
    ['LOCAL_BIND_ADDRESS', { LOCAL_BIND_ADDRESS: 'localhost' }],
  ])('local development refuses a bad %s, naming it', (variable, env) => {
    expect(() => loadDevelopmentSettings(env)).toThrow(expect.objectContaining({ variable }));
  });

  it("Issue 43, item 4: local development's settings are not the product's (loadSettings neither holds nor reads them)", () => {
    expect(Object.keys(settings)).not.toContain('local');
    expect(refusedVariable({ LOCAL_HTTPS: 'yes', LOCAL_CONTROLLER: 'off', LOCAL_DATA_DIR: 'state' })).toBeUndefined();
  });

  it('runtime: FUNCTION_TARGET, K_SERVICE and K_REVISION as given', () => {
    expect(settings.runtime).toEqual({
      functionTarget: undefined,
      knativeService: undefined,
      knativeRevision: undefined,
    });
    expect(loadSettings({ FUNCTION_TARGET: 'login', K_SERVICE: 'login', K_REVISION: 'login-00001' }).runtime).toEqual({
      functionTarget: 'login',
      knativeService: 'login',
      knativeRevision: 'login-00001',
    });
  });

  it('is frozen through every section: nothing changes a setting after start', () => {
    expect(Object.isFrozen(settings)).toBe(true);
    for (const section of Object.values(settings)) expect(Object.isFrozen(section)).toBe(true);
    const withScopes = loadSettings({
      OIDC_ISSUER_URL: 'https://idp.example.test',
      OIDC_CLIENT_ID: 'web',
      OIDC_ADDITIONAL_SCOPES: 'groups',
    });
    expect(() => (withScopes.identity.oidc!.additionalScopes as string[]).push('admin')).toThrow(TypeError);
    expect(() => ((settings.server as { port: number }).port = 1)).toThrow(TypeError);
  });

  it('reads only the environment it is given', () => {
    expect(loadSettings({ API_GROUP: 'example.org' }).server.apiGroup).toBe('example.org');
    expect(loadSettings({}).server.apiGroup).toBe('platform.dev');
  });
});

describe('A bad setting refuses to start with a ConfigError naming the variable, whichever section it is in', () => {
  it.each([
    ['PORT', { PORT: 'eighty' }],
    ['API_GROUP', { API_GROUP: 'Not A Group' }],
    ['API_BASE_URL', { API_BASE_URL: 'ftp://x' }],
    ['MAX_REQUEST_BODY_BYTES', { MAX_REQUEST_BODY_BYTES: '0' }],
    ['MAX_REQUEST_HEADER_BYTES', { MAX_REQUEST_HEADER_BYTES: '10' }],
    ['TRUSTED_PROXY_HOPS', { TRUSTED_PROXY_HOPS: '11' }],
    ['BRIDGE_UPSTREAM_URL', { BRIDGE_UPSTREAM_URL: 'bridge:5556' }],
    ['GATEWAY_CONNECT_TIMEOUT', { GATEWAY_CONNECT_TIMEOUT: '5000' }],
    ['GATEWAY_RESPONSE_HEADER_TIMEOUT', { GATEWAY_RESPONSE_HEADER_TIMEOUT: '2h' }],
    ['RUN_LOG_HEARTBEAT_INTERVAL', { RUN_LOG_HEARTBEAT_INTERVAL: '15' }],
    ['RUN_LOG_MAX_STREAMS_PER_PRINCIPAL', { RUN_LOG_MAX_STREAMS_PER_PRINCIPAL: '0' }],
    ['RUN_LOG_SEND_BUFFER_BYTES', { RUN_LOG_SEND_BUFFER_BYTES: '1kb' }],
    ['MAX_WATCHES_PER_PRINCIPAL', { MAX_WATCHES_PER_PRINCIPAL: '0' }],
    ['PLAN_APPROVAL_MAX_AGE', { PLAN_APPROVAL_MAX_AGE: '24' }],
    ['PLAN_APPROVAL_MAX_AGE', { PLAN_APPROVAL_MAX_AGE: '0s' }],
    // Above the request body limit, the document would be refused before the route: the setting would not take effect.
    ['RUN_PLAN_JSON_MAX_BYTES', { RUN_PLAN_JSON_MAX_BYTES: '2097152' }],
    ['RUN_PLAN_JSON_MAX_BYTES', { RUN_PLAN_JSON_MAX_BYTES: '0' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }],
    ['API_SERVICE_ACCOUNT', { PROJECT_SECRETS_CLUSTER_ROLE: 'secrets', POD_NAMESPACE: 'platform' }],
    ['ADMIN_SECRET_SOURCE', { ADMIN_SECRET_SOURCE: 'vault:x' }],
    ['ADMIN_SECRET_SOURCE', { ADMIN_SECRET_SOURCE: 'kubernetes:only-a-name' }],
    ['ADMIN_SECRET_SOURCE', { ADMIN_SECRET_SOURCE: 'file:' }],
    ['ADMIN_SECRET_POLL_INTERVAL', { ADMIN_SECRET_SOURCE: 'file:/etc/admin', ADMIN_SECRET_POLL_INTERVAL: '50ms' }],
    ['OIDC_CLIENT_ID', { OIDC_ISSUER_URL: 'https://idp.example.test' }],
    ['OIDC_CLIENT_ID', { OIDC_CLIENT_ID: 'web' }],
    ['SERVICE_ACCOUNT_ISSUERS', { SERVICE_ACCOUNT_ISSUERS: ' , ' }],
    ['TLS_KEY_FILE', { TLS_CERT_FILE: '/tls/tls.crt' }],
    ['TLS_CERT_FILE', { TLS_KEY_FILE: '/tls/tls.key' }],
    ['DATABASE_URL', { DATABASE_URL: 'notaurl' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://db.internal/platform' }],
    ['DATABASE_URL', { DATABASE_URL: 'postgres://' }],
    ['AUDIT_POLICY', { AUDIT_POLICY: 'Everything' }],
    ['AUDIT_POLICY', { AUDIT_POLICY: 'write=Loud' }],
    ['AUDIT_POLICY', { AUDIT_POLICY: 'reads=Metadata' }],
    ['AUDIT_POLICY', { AUDIT_POLICY: 'write=Metadata=Request' }],
    ['AUDIT_MODE', { AUDIT_MODE: 'sync' }],
    ['AUDIT_RETENTION', { AUDIT_RETENTION: '1h' }],
    ['AUDIT_RETENTION', { AUDIT_RETENTION: '90d' }],
    ['AUDIT_BUFFER_EVENTS', { AUDIT_BUFFER_EVENTS: '0' }],
    ['RUN_HISTORY_RETENTION', { RUN_HISTORY_RETENTION: '30m' }],
    ['RUN_HISTORY_RETENTION', { RUN_HISTORY_RETENTION: '365d' }],
    ['RUN_HISTORY_RETENTION', { RUN_HISTORY_RETENTION: '1000000h' }],
    ['RUN_LOG_RETENTION', { RUN_LOG_RETENTION: '-1h' }],
    ['RUN_LOG_RETENTION', { RUN_LOG_RETENTION: '90' }],
    ['RUN_LOG_COMPACTION_DELAY', { RUN_LOG_COMPACTION_DELAY: '-1m' }],
    ['RUN_LOG_COMPACTION_DELAY', { RUN_LOG_COMPACTION_DELAY: 'soon' }],
    ['RUN_LOG_COMPACTION_DELAY', { RUN_LOG_COMPACTION_DELAY: '999999999h' }],
    ['AUDIT_STDOUT', { AUDIT_STDOUT: 'no' }],
    ['METRICS', { METRICS: 'yes' }],
    ['LOGIN_FAILURE_WINDOW', { LOGIN_FAILURE_WINDOW: '300' }],
    ['LOGIN_FAILURE_WINDOW', { LOGIN_FAILURE_WINDOW: '500ms' }],
    ['LOGIN_FAILURE_WINDOW', { LOGIN_FAILURE_WINDOW: '25h' }],
    ['LOGIN_CLIENT_MAX_FAILURES', { LOGIN_CLIENT_MAX_FAILURES: '0' }],
    ['LOGIN_ACCOUNT_MAX_FAILURES', { LOGIN_ACCOUNT_MAX_FAILURES: 'many' }],
    ['LOGIN_ACCOUNT_MAX_FAILURES', { LOGIN_ACCOUNT_MAX_FAILURES: '2.5' }],
    ['LOGIN_IPV6_PREFIX_LENGTH', { LOGIN_IPV6_PREFIX_LENGTH: '129' }],
    ['LOGIN_IPV6_PREFIX_LENGTH', { LOGIN_IPV6_PREFIX_LENGTH: '8' }],
  ])('%s (%j)', (variable, env) => {
    expect(refusedVariable(env)).toBe(variable);
  });

  it('issue 23: METRICS is on unless set to false (or off, its former spelling; any case, nothing else)', () => {
    expect(loadSettings({}).server.metrics).toBe(true);
    expect(loadSettings({ METRICS: 'false' }).server.metrics).toBe(false);
    expect(loadSettings({ METRICS: 'OFF' }).server.metrics).toBe(false);
    expect(loadSettings({ METRICS: ' on ' }).server.metrics).toBe(true);
  });

  it('issue 23: a refused DATABASE_URL is not repeated in the error (it may hold a password)', () => {
    expect(() => loadSettings({ DATABASE_URL: 'mysql://user:hunter2@db/platform' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The static check: which modules touch the environment at all.

/** The configuration modules: the only ones that read variables out of an environment (the product's, local development's). */
const CONFIG_MODULES = /^shared\/base\/config\/|^infra\/development\/local\/local-settings\.ts$/;

/** Modules that hold an environment only to hand it on untouched, and why. */
const FORWARDERS: Record<string, string> = {
  'infra/development/fleet/replica-environment.ts':
    'builds the environment each fleet replica parses its own settings from',
  'cli/platform-api/kubeconfig-command.ts':
    "the kubectl-side KUBECONFIG: which file the user's new context is written to, not a server setting",
  'cli/plugin/kubeconfig-files.ts':
    "the kubectl plugin reads the user's KUBECONFIG as kubectl does, and tells exec credential plugins they may be interactive (KUBERNETES_EXEC_INFO), not a server setting",
};

/** Modules that receive an environment record (the `Environment` type) only to pass it on, never to read it. */
const PASSES_ON = new Set([
  'knative/node-http/start-up.ts',
  'infra/development/fleet/fleet.ts',
  'infra/development/fleet/function-replica.ts',
]);

/** The processes' entry points: each parses the settings once, from `process.env`, and hands them down. */
const ENTRY_POINTS = [
  'infra/development/gateway/local-start-up.ts',
  'knative/functions-framework-target.ts',
  'infra/development/entries/function-container.ts',
  'knative/aws-lambda.ts',
  'knative/server.ts',
  'knative/function-container.ts',
  'knative/functions/console.ts',
  'infra/development/commands/local-command-main.ts',
  'shared/base/database/migrate-cli.ts',
];

/** The development entry points: each parses local development's settings once too (local-settings.ts). */
const DEVELOPMENT_ENTRY_POINTS = [
  'infra/development/gateway/local-start-up.ts',
  'infra/development/entries/function-container.ts',
  'infra/development/entries/functions-framework.ts',
];

/**
 * `npm start` and `npm run fleet`: both start as local development does (local-start-up.ts parses both
 * settings for them, once, in one helper: issue 43, duplicates); the fleet forwards the environment to its replicas.
 */
const LOCAL_STARTS = ['infra/development/gateway/local-gateway.ts', 'infra/development/fleet/fleet-main.ts'];
const LOCAL_START_CALL = /\bstartLocalDevelopment\(\)/g;

/** The loader called with the process's environment (the functions-framework lays its flags over it). */
const LOADER_CALL =
  /\b(?:loadSettings|settingsOrExit)\(\s*(?:\{\s*\.\.\.)?process\.env\b(?!\s*,\s*loadDevelopmentSettings)/g;
/** The development entries' call of local development's loader (LOCAL_DATA_DIR, LOCAL_HTTPS, LOCAL_CONTROLLER). */
const DEVELOPMENT_LOADER_CALL = /\bsettingsOrExit\(\s*process\.env,\s*loadDevelopmentSettings\s*\)/g;
/** How an entry point may name `process.env`: as the argument of the loader, or forwarded to the fleet's replicas. */
const ENTRY_USES = [LOADER_CALL, DEVELOPMENT_LOADER_CALL, /\bstartFleet\(\s*settings,\s*process\.env\b/g];

/** A variable read out of an environment record: `env.X`, `env?.X`, `env['X']`, `process.env.X`, `environment.X`. */
const VARIABLE_READ =
  /\b(?:env|environment|forwarded)\s*(?:\?\.|\.)\s*\[?\s*['"]?[A-Z][A-Z0-9_]*|\b(?:env|environment)\s*(?:\?\.)?\[/g;

function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** What a module does with the environment that only a configuration module may do; empty when nothing. */
function environmentOffences(path: string, source: string): string[] {
  if (CONFIG_MODULES.test(path) || path in FORWARDERS) return [];
  const code = withoutComments(source);
  const offences: string[] = [];
  const stray = [...ENTRY_POINTS, ...DEVELOPMENT_ENTRY_POINTS, ...LOCAL_STARTS].includes(path)
    ? ENTRY_USES.reduce((text, allowed) => text.replace(allowed, ''), code)
    : code;
  if (/\bprocess\.env\b/.test(stray)) offences.push(`${path} reads process.env`);
  for (const match of code.matchAll(VARIABLE_READ)) offences.push(`${path} reads an environment variable: ${match[0]}`);
  if (/\bEnvironment\b/.test(code) && !PASSES_ON.has(path))
    offences.push(`${path} takes an environment record instead of its settings`);
  return offences;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|js)$/.test(entry.name) ? [path] : [];
  });
}

describe('Nothing but the configuration modules reads the environment', () => {
  const files = ['shared', 'functions', 'knative', 'infra/development', 'cli'].flatMap((folder) =>
    sourceFiles(join(REPO_ROOT, folder)),
  );

  it('finds the modules of the product, its entry points and its CLI', () => {
    expect(files.length).toBeGreaterThan(100);
    for (const listed of [
      ...Object.keys(FORWARDERS),
      ...PASSES_ON,
      ...ENTRY_POINTS,
      ...DEVELOPMENT_ENTRY_POINTS,
      ...LOCAL_STARTS,
    ])
      expect(files.map((file) => relative(REPO_ROOT, file))).toContain(listed);
  });

  it('outside shared/config, process.env is only handed to the loader (or forwarded to the fleet), and no variable is read', () => {
    const offences = files.flatMap((file) =>
      environmentOffences(relative(REPO_ROOT, file), readFileSync(file, 'utf8')),
    );
    expect(offences).toEqual([]);
  });

  it('each entry point parses the settings exactly once', () => {
    for (const entry of ENTRY_POINTS) {
      expect(withoutComments(readFileSync(join(REPO_ROOT, entry), 'utf8')).match(LOADER_CALL), entry).toHaveLength(1);
    }
  });

  it("each development entry point parses local development's settings exactly once", () => {
    for (const entry of DEVELOPMENT_ENTRY_POINTS) {
      const code = withoutComments(readFileSync(join(REPO_ROOT, entry), 'utf8'));
      expect(code.match(DEVELOPMENT_LOADER_CALL), entry).toHaveLength(1);
    }
  });

  it('npm start and npm run fleet start through the one local start-up helper, and parse no settings themselves', () => {
    for (const entry of LOCAL_STARTS) {
      const code = withoutComments(readFileSync(join(REPO_ROOT, entry), 'utf8'));
      expect(code.match(LOCAL_START_CALL), entry).toHaveLength(1);
      expect(code.match(LOADER_CALL) ?? [], entry).toEqual([]);
      expect(code.match(DEVELOPMENT_LOADER_CALL) ?? [], entry).toEqual([]);
    }
  });

  it('the check catches each way a module could read the environment itself', () => {
    const module = 'shared/domain/runs/example.ts';
    const entry = 'infra/development/gateway/local-gateway.ts';
    expect(environmentOffences(module, 'const url = process.env.DATABASE_URL;')).toHaveLength(2);
    expect(
      environmentOffences(module, 'export function f(env: Environment) { return env.KUBECONFIG?.trim(); }'),
    ).toHaveLength(2);
    expect(environmentOffences(module, "const level = env['LOG_LEVEL'];")).toHaveLength(1);
    expect(environmentOffences(module, 'const all = { ...process.env };')).toHaveLength(1);
    expect(environmentOffences(module, 'const settings = loadSettings(process.env);')).toHaveLength(1);
    expect(environmentOffences(entry, 'const settings = settingsOrExit(process.env); // not process.env.PORT')).toEqual(
      [],
    );
    expect(environmentOffences(entry, 'const settings = loadSettings({ ...process.env, ...flags });')).toEqual([]);
    expect(environmentOffences(entry, 'const port = process.env.PORT;')).toHaveLength(2);
    expect(environmentOffences('shared/base/config/settings.ts', 'const url = env.DATABASE_URL;')).toEqual([]);
  });
});

describe('Local development mode turned off by a partial admin configuration is explained at start-up (issue 21)', () => {
  const startUpLines = async (env: Record<string, string>) => {
    const { adminSettingsFromEnvironment } = await import(
      '../../../shared/base/config/admin-settings-from-environment.ts'
    );
    const { capturingLogger } = await import('../../support/function-servers.ts');
    const settings = loadSettings(env);
    const logger = capturingLogger();
    adminSettingsFromEnvironment(settings.adminSecret.environmentValues, settings.server, logger);
    return logger.lines.join('\n');
  };

  it('one admin variable (ADMIN_ACCOUNT_TOKEN_TTL=15s) is named as what turned the password "admin" off', async () => {
    expect(loadSettings({ ADMIN_ACCOUNT_TOKEN_TTL: '15s' }).server).toMatchObject({
      devMode: false,
      devModeOffBy: ['ADMIN_ACCOUNT_TOKEN_TTL'],
    });
    const lines = await startUpLines({ ADMIN_ACCOUNT_TOKEN_TTL: '15s' });
    expect(lines).toContain('local development mode is off because ADMIN_ACCOUNT_TOKEN_TTL is set');
    expect(lines).toContain('no password \\"admin\\"');
  });

  it('says nothing of it in local development mode, nor in production', async () => {
    expect(await startUpLines({})).not.toContain('is off because');
    expect(loadSettings({ NODE_ENV: 'production', ADMIN_ACCOUNT_ENABLED: 'false' }).server.devModeOffBy).toEqual([]);
  });

  it('a secret source (ADMIN_SECRET_SOURCE=file:, as the fleet hands each replica) is a whole configuration: no such warning (issue 38, item 14)', async () => {
    const [{ mkdtemp, rm }, { tmpdir }, { join }] = await Promise.all([
      import('node:fs/promises'),
      import('node:os'),
      import('node:path'),
    ]);
    const { ensureAdminSecretFolder } = await import('../../../infra/development/local/admin-secret-folder.ts');
    const { openAdminSettingsSource } = await import(
      '../../../shared/base/config/secret-sources/open-admin-settings-source.ts'
    );
    const { capturingLogger } = await import('../../support/function-servers.ts');
    const folder = await mkdtemp(join(tmpdir(), 'fleet-secret-'));
    try {
      await ensureAdminSecretFolder(folder);
      const settings = loadSettings({ ADMIN_SECRET_SOURCE: `file:${folder}` });
      expect(settings.server.devMode).toBe(false);
      const logger = capturingLogger();
      const source = await openAdminSettingsSource(settings, logger);
      await source.close();
      const lines = logger.lines.join('\n');
      expect(lines).not.toContain('local development mode is off');
      expect(lines).not.toContain('"level":"warn"');
      expect(lines).toContain('admin settings follow an external secret');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('issue 23: tracing settings, by the standard OTEL_* variables', () => {
  it('off by default: no OTLP endpoint, parent-based always-on sampling, no export headers', () => {
    expect(loadSettings({}).tracing).toEqual({
      tracesUrl: undefined,
      serviceName: undefined,
      sampling: { sampler: 'parentbased_always_on', ratio: 1 },
      exportHeaders: {},
    });
  });

  it('OTEL_EXPORTER_OTLP_ENDPOINT gains /v1/traces; OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is taken as given and wins', () => {
    expect(loadSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing.tracesUrl).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(
      loadSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://tempo.example.test/otlp/v1/traces',
      }).tracing.tracesUrl,
    ).toBe('https://tempo.example.test/otlp/v1/traces');
  });

  it('OTEL_SDK_DISABLED=true turns tracing off whatever the endpoint', () => {
    expect(
      loadSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing
        .tracesUrl,
    ).toBeUndefined();
  });

  it('service name, sampler and its ratio, and URL-decoded export headers (the signal-specific variable wins)', () => {
    expect(
      loadSettings({
        OTEL_SERVICE_NAME: 'api-eu',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-ignored=1',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'Authorization=Bearer%20abc, x-scope-orgid=team-a',
      }).tracing,
    ).toMatchObject({
      serviceName: 'api-eu',
      sampling: { sampler: 'parentbased_traceidratio', ratio: 0.25 },
      exportHeaders: { authorization: 'Bearer abc', 'x-scope-orgid': 'team-a' },
    });
  });

  it.each([
    ['OTEL_EXPORTER_OTLP_ENDPOINT', { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }],
    ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317' }],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }],
    ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }],
    ['OTEL_TRACES_SAMPLER', { OTEL_TRACES_SAMPLER: 'sometimes' }],
    ['OTEL_TRACES_SAMPLER_ARG', { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' }],
    ['OTEL_SDK_DISABLED', { OTEL_SDK_DISABLED: 'yes' }],
    ['OTEL_EXPORTER_OTLP_HEADERS', { OTEL_EXPORTER_OTLP_HEADERS: 'token' }],
    ['OTEL_EXPORTER_OTLP_TRACES_HEADERS', { OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'authorization=%E0%A4%A' }],
  ])('%s (%j) is refused, naming the variable', (variable, env) => {
    expect(refusedVariable(env)).toBe(variable);
  });

  it('a refused export header does not repeat its value (it is usually a credential)', () => {
    expect(() => loadSettings({ OTEL_EXPORTER_OTLP_HEADERS: 'secret-token-value' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('secret-token-value') }),
    );
  });
});
