import type { Environment } from './environment.ts';
import { ConfigError } from './config-error.ts';
import { parseHttpUrlSetting, settingReader, type SettingReader } from './setting-values.ts';
import { ADMIN_SETTING_KEYS, DEV_MODE_PASSWORD_HASH, type AdminSettingValues } from './admin-account-settings.ts';
import { loadProjectSecretsAccess, type ProjectSecretsAccess } from './project-secrets-access.ts';
import { parseCorsAllowedOrigins } from './cors-allowed-origins.ts';
import { LOG_LEVELS, isLogLevel, type LogLevel } from '../logging/logger.ts';

/** How long a proxy of this server (the fleet's gateway, the bridge's proxy) waits on its upstream. */
export interface UpstreamTimeouts {
  /** From sending until the upstream accepts the TCP connection. */
  connectMs: number;
  /** From the request written in full (body included) until the upstream's response headers arrive. */
  responseHeaderMs: number;
}

/** Settings fixed for the life of the process (everything but the rotatable admin secret). */
export interface ServerConfig {
  port: number;
  /** The server's own URL: the admin token's `iss`. */
  apiBaseUrl: string;
  apiGroup: string;
  /** Local development mode: no admin settings given and NODE_ENV is not production. */
  devMode: boolean;
  /** Outside production, the admin variables whose presence turned local development mode off (to say so at start-up). */
  devModeOffBy: readonly string[];
  production: boolean;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: number;
  /** Largest total request header size, in bytes. */
  maxHeaderBytes: number;
  /** How many X-Forwarded-For hops to trust when finding the client address (login throttling). */
  trustedProxyHops: number;
  bridgeUpstreamUrl: string | undefined;
  /**
   * GATEWAY_CONNECT_TIMEOUT and GATEWAY_RESPONSE_HEADER_TIMEOUT: how long the fleet's gateway (and
   * the identity bridge's proxy) waits for an upstream to connect, then for its response headers.
   */
  gatewayTimeouts: UpstreamTimeouts;
  /** How long a run-log stream may stay silent before it sends a heartbeat comment, in milliseconds. */
  runLogHeartbeatMs: number;
  /** How many run-log streams one principal may have open at once in this process. */
  runLogMaxStreamsPerPrincipal: number;
  /** How many bytes a run-log client may leave unread (queued, or not drained by the socket) before it is told to resume. */
  runLogSendBufferBytes: number;
  /** How many resource watches (`?watch=true`, `kubectl get -w`) one principal may hold open at once in this process. */
  maxWatchesPerPrincipal: number;
  /** PLAN_APPROVAL_MAX_AGE: how long after it finished a succeeded plan may still be approved for apply, in milliseconds. */
  planApprovalMaxAgeMs: number;
  /**
   * RUN_TASK_TIMEOUT: how long a run waits for each of its run tasks from the moment it reached the stage, in
   * milliseconds; also the lifetime of the task's access token (issue 48, docs/run-tasks.md).
   */
  runTaskTimeoutMs: number;
  /**
   * RUN_PLAN_JSON_MAX_BYTES: the largest plan's JSON a controller may upload for a plan run (issue 48, item 2), in
   * bytes; at most MAX_REQUEST_BODY_BYTES (a larger body never reaches the route), which is also its default.
   */
  runPlanJsonMaxBytes: number;
  /** The ClusterRole the API server binds to itself in each Project's namespace; undefined: none. */
  projectSecretsAccess: ProjectSecretsAccess | undefined;
  logLevel: LogLevel;
  /** Browser origins allowed to call the API across origins (CORS); empty: none, `['*']`: any. */
  corsAllowedOrigins: string[];
  /** METRICS: whether `/metrics` serves Prometheus metrics and the hooks record them (docs/observability.md). */
  metrics: boolean;
}

const DNS_LABEL_GROUP = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;

/** Reads the server section of the settings (see settings.ts); throws ConfigError naming the bad variable. */
export function loadServerConfig(env: Environment, warnings: string[] = []): ServerConfig {
  const setting = settingReader(env, warnings);
  const port = setting.integer('PORT', { fallback: 8080, min: 0, max: 65535 });
  const production = env.NODE_ENV === 'production';
  const adminVariablesGiven = [...ADMIN_SETTING_KEYS, 'ADMIN_SECRET_SOURCE'].filter((key) => env[key] !== undefined);
  const devMode = !production && adminVariablesGiven.length === 0;
  const apiBaseUrl = parseUrl(setting, 'API_BASE_URL', `http://localhost:${port}`).replace(/\/+$/, '');
  const apiGroup = setting.text('API_GROUP') ?? 'platform.dev';
  if (!DNS_LABEL_GROUP.test(apiGroup)) {
    throw new ConfigError('API_GROUP', `"${apiGroup}" is not a DNS subdomain such as platform.dev`);
  }
  const bridge = setting.text('BRIDGE_UPSTREAM_URL');
  const maxBodyBytes = setting.integer('MAX_REQUEST_BODY_BYTES', {
    fallback: 1024 * 1024,
    min: 1,
    max: 64 * 1024 * 1024,
  });
  return {
    port,
    apiBaseUrl,
    apiGroup,
    devMode,
    devModeOffBy: production ? [] : adminVariablesGiven,
    production,
    maxBodyBytes,
    maxHeaderBytes: setting.integer('MAX_REQUEST_HEADER_BYTES', { fallback: 16 * 1024, min: 1024, max: 1024 * 1024 }),
    trustedProxyHops: setting.integer('TRUSTED_PROXY_HOPS', { fallback: 0, min: 0, max: 10 }),
    bridgeUpstreamUrl: bridge ? parseUrl(setting, 'BRIDGE_UPSTREAM_URL', '') : undefined,
    gatewayTimeouts: {
      connectMs: setting.duration('GATEWAY_CONNECT_TIMEOUT', { ...UPSTREAM_TIMEOUT, fallback: '5s' }),
      responseHeaderMs: setting.duration('GATEWAY_RESPONSE_HEADER_TIMEOUT', { ...UPSTREAM_TIMEOUT, fallback: '30s' }),
    },
    // A timer: far below Node's limit, and not so short that an idle stream is all heartbeats.
    runLogHeartbeatMs: setting.duration('RUN_LOG_HEARTBEAT_INTERVAL', {
      fallback: '15s',
      min: '100ms',
      max: '1h',
      example: '15s',
    }),
    runLogMaxStreamsPerPrincipal: setting.integer('RUN_LOG_MAX_STREAMS_PER_PRINCIPAL', {
      fallback: 100,
      min: 1,
      max: 1_000_000,
    }),
    runLogSendBufferBytes: setting.integer('RUN_LOG_SEND_BUFFER_BYTES', {
      fallback: 256 * 1024,
      min: 4 * 1024,
      max: 64 * 1024 * 1024,
    }),
    maxWatchesPerPrincipal: setting.integer('MAX_WATCHES_PER_PRINCIPAL', { fallback: 100, min: 1, max: 1_000_000 }),
    // Compared with the database's clock as an interval: a year is longer than any plan stays relevant.
    planApprovalMaxAgeMs: setting.duration('PLAN_APPROVAL_MAX_AGE', {
      fallback: '24h',
      min: '1ms',
      max: '8760h',
      example: '24h',
    }),
    // HCP Terraform's 10 minutes; compared with the database's clock as an interval, a day at most.
    runTaskTimeoutMs: setting.duration('RUN_TASK_TIMEOUT', { fallback: '10m', min: '1s', max: '24h', example: '10m' }),
    // Bounded by the request body limit: a larger document is refused before the route (413 either way).
    runPlanJsonMaxBytes: setting.integer('RUN_PLAN_JSON_MAX_BYTES', {
      fallback: maxBodyBytes,
      min: 1,
      max: maxBodyBytes,
    }),
    projectSecretsAccess: loadProjectSecretsAccess(env),
    logLevel: parseLogLevel(setting),
    corsAllowedOrigins: parseCorsAllowedOrigins(setting.list('CORS_ALLOWED_ORIGINS')),
    metrics: setting.boolean('METRICS', { fallback: true, formerly: { true: ['on'], false: ['off'] } }),
  };
}

function parseLogLevel(setting: SettingReader): LogLevel {
  const text = setting.text('LOG_LEVEL') ?? 'info';
  if (!isLogLevel(text)) throw new ConfigError('LOG_LEVEL', `"${text}" is not one of ${LOG_LEVELS.join(', ')}`);
  return text;
}

// Upstream deadlines are timers (past 2^31-1 ms Node fires them at once); an hour is plenty.
const UPSTREAM_TIMEOUT = { min: '1ms', max: '1h', example: '5s' } as const;

/** The admin settings of local development mode: admin enabled, password `admin`, key made at start. */
export function devModeAdminValues(): AdminSettingValues {
  return {
    ADMIN_ACCOUNT_ENABLED: 'true',
    ADMIN_ACCOUNT_PASSWORD_HASH: DEV_MODE_PASSWORD_HASH,
    ADMIN_ACCOUNT_TOKEN_TTL: '24h',
  };
}

function parseUrl(setting: SettingReader, variable: string, fallback: string): string {
  const text = setting.text(variable) ?? fallback;
  parseHttpUrlSetting(variable, text);
  return text;
}
