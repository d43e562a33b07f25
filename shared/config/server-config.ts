import type { Environment } from './environment.ts';
import { ConfigError } from './config-error.ts';
import { parseDurationSetting, parseHttpUrlSetting } from './setting-values.ts';
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
export function loadServerConfig(env: Environment): ServerConfig {
  const port = parseInteger(env, 'PORT', 8080, 0, 65535);
  const production = env.NODE_ENV === 'production';
  const adminVariablesGiven = [...ADMIN_SETTING_KEYS, 'ADMIN_SECRET_SOURCE'].filter((key) => env[key] !== undefined);
  const devMode = !production && adminVariablesGiven.length === 0;
  const apiBaseUrl = parseUrl(env, 'API_BASE_URL', `http://localhost:${port}`).replace(/\/+$/, '');
  const apiGroup = env.API_GROUP?.trim() || 'platform.dev';
  if (!DNS_LABEL_GROUP.test(apiGroup)) {
    throw new ConfigError('API_GROUP', `"${apiGroup}" is not a DNS subdomain such as platform.dev`);
  }
  const bridge = env.BRIDGE_UPSTREAM_URL?.trim();
  return {
    port,
    apiBaseUrl,
    apiGroup,
    devMode,
    devModeOffBy: production ? [] : adminVariablesGiven,
    production,
    maxBodyBytes: parseInteger(env, 'MAX_REQUEST_BODY_BYTES', 1024 * 1024, 1, 64 * 1024 * 1024),
    maxHeaderBytes: parseInteger(env, 'MAX_REQUEST_HEADER_BYTES', 16 * 1024, 1024, 1024 * 1024),
    trustedProxyHops: parseInteger(env, 'TRUSTED_PROXY_HOPS', 0, 0, 10),
    bridgeUpstreamUrl: bridge ? parseUrl(env, 'BRIDGE_UPSTREAM_URL', '') : undefined,
    gatewayTimeouts: {
      connectMs: parseTimeout(env, 'GATEWAY_CONNECT_TIMEOUT', 5_000),
      responseHeaderMs: parseTimeout(env, 'GATEWAY_RESPONSE_HEADER_TIMEOUT', 30_000),
    },
    runLogHeartbeatMs: parseDuration(env, 'RUN_LOG_HEARTBEAT_INTERVAL', 15_000),
    runLogMaxStreamsPerPrincipal: parseInteger(env, 'RUN_LOG_MAX_STREAMS_PER_PRINCIPAL', 100, 1, 1_000_000),
    runLogSendBufferBytes: parseInteger(env, 'RUN_LOG_SEND_BUFFER_BYTES', 256 * 1024, 4 * 1024, 64 * 1024 * 1024),
    maxWatchesPerPrincipal: parseInteger(env, 'MAX_WATCHES_PER_PRINCIPAL', 100, 1, 1_000_000),
    planApprovalMaxAgeMs: parseDuration(env, 'PLAN_APPROVAL_MAX_AGE', 24 * 3_600_000),
    projectSecretsAccess: loadProjectSecretsAccess(env),
    logLevel: parseLogLevel(env),
    corsAllowedOrigins: parseCorsAllowedOrigins(env.CORS_ALLOWED_ORIGINS),
    metrics: parseSwitch(env, 'METRICS', true),
  };
}

function parseLogLevel(env: Environment): LogLevel {
  const text = env.LOG_LEVEL?.trim();
  if (text === undefined || text === '') return 'info';
  if (!isLogLevel(text)) throw new ConfigError('LOG_LEVEL', `"${text}" is not one of ${LOG_LEVELS.join(', ')}`);
  return text;
}

// `on` or `off`, nothing else: a typo must not silently switch a setting.
function parseSwitch(env: Environment, variable: string, fallback: boolean): boolean {
  const text = env[variable]?.trim().toLowerCase();
  if (text === undefined || text === '') return fallback;
  if (text === 'on') return true;
  if (text === 'off') return false;
  throw new ConfigError(variable, `"${env[variable]}" is not on or off`);
}

/** The admin settings of local development mode: admin enabled, password `admin`, key made at start. */
export function devModeAdminValues(): AdminSettingValues {
  return {
    ADMIN_ACCOUNT_ENABLED: 'true',
    ADMIN_ACCOUNT_PASSWORD_HASH: DEV_MODE_PASSWORD_HASH,
    ADMIN_ACCOUNT_TOKEN_TTL: '24h',
  };
}

function parseInteger(env: Environment, variable: string, fallback: number, min: number, max: number): number {
  const text = env[variable]?.trim();
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(variable, `"${text}" is not a whole number from ${min} to ${max}`);
  }
  return value;
}

// A Go duration (`15s`, `1m`), as operators write the chart's other durations; zero or negative is refused.
function parseDuration(env: Environment, variable: string, fallbackMs: number): number {
  const text = env[variable]?.trim();
  if (text === undefined || text === '') return fallbackMs;
  return parseDurationSetting(variable, text, Number.MIN_VALUE, 'a positive Go duration such as 15s');
}

// A timer longer than 2^31-1 ms fires at once in Node, so a timeout is bounded (an hour is plenty).
const MAX_TIMEOUT_MS = 3_600_000;
const TIMEOUT_REQUIREMENT = 'a Go duration from 1ms to 1h such as 5s';

function parseTimeout(env: Environment, variable: string, fallbackMs: number): number {
  const text = env[variable]?.trim();
  if (text === undefined || text === '') return fallbackMs;
  const ms = parseDurationSetting(variable, text, 1, TIMEOUT_REQUIREMENT);
  if (ms > MAX_TIMEOUT_MS) throw new ConfigError(variable, `"${text}" is not ${TIMEOUT_REQUIREMENT}`);
  return ms;
}

function parseUrl(env: Environment, variable: string, fallback: string): string {
  const text = env[variable]?.trim() || fallback;
  parseHttpUrlSetting(variable, text);
  return text;
}
