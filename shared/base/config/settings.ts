import { loadAdminSecretSettings, type AdminSecretSettings } from './admin-secret-settings.ts';
import { loadAuditSettings, type AuditSettings } from './audit-settings.ts';
import { loadRunHistorySettings, type RunHistorySettings } from './run-history-settings.ts';
import { ConfigError } from './config-error.ts';
import { loadOutboundSettings, type OutboundSettings } from './outbound-settings.ts';
import { loadIdentityConfig, type IdentityConfig } from './identity-config.ts';
import { loadLoginThrottleSettings, type LoginThrottleSettings } from './login-throttle-settings.ts';
import { loadConsoleSettings, type ConsoleSettings } from './console-settings.ts';
import type { Environment } from './environment.ts';
import { loadServerConfig, type ServerConfig } from './server-config.ts';
import { loadTracingSettings, type TracingSettings } from './tracing-settings.ts';
import { settingReader, type SettingReader } from './setting-values.ts';

/**
 * Every setting of the process, parsed once from the environment at start (as Kargo's
 * `pkg/server/config` does): the entry points call `loadSettings(process.env)` and hand the
 * result, or the section a part needs, down. Nothing else reads the environment; a new setting
 * is parsed here (or in its section's module beside this one), tested in
 * test/system/foundation/settings.test.ts and listed in the README's environment table. Local
 * development's own settings (LOCAL_DATA_DIR, LOCAL_HTTPS, LOCAL_CONTROLLER) are not the product's:
 * infra/development/local/local-settings.ts parses them.
 */
export interface Settings {
  /** Serving, limits, API group and base URL, run-log limits, logging (server-config.ts). */
  readonly server: ServerConfig;
  /** Where the rotatable admin secret comes from (admin-secret-settings.ts); read through its AdminSettingsSource. */
  readonly adminSecret: AdminSecretSettings;
  /** OIDC and the ServiceAccount issuers (identity-config.ts). */
  readonly identity: IdentityConfig;
  readonly database: DatabaseSettings;
  /** Run history's retention and log compaction (run-history-settings.ts). */
  readonly runHistory: RunHistorySettings;
  /** The audit trail: policy, database mode, retention (audit-settings.ts). */
  readonly audit: AuditSettings;
  /** Failed-login budgets: the window, per client, per account, IPv6 grouping (login-throttle-settings.ts). */
  readonly login: LoginThrottleSettings;
  readonly cluster: ClusterSettings;
  readonly tls: TlsSettings;
  readonly runtime: RuntimeSettings;
  /** OpenTelemetry traces: the OTLP endpoint (none: off), service name, sampling (tracing-settings.ts). */
  readonly tracing: TracingSettings;
  /** The web console's static server and its local port (console-settings.ts). */
  readonly console: ConsoleSettings;
  /** The outbound engine: attempts, back-off, timeouts, the sweep, retention, allowed ranges (outbound-settings.ts). */
  readonly outbound: OutboundSettings;
  /** Values accepted but spelled the deprecated way (METRICS=on), each naming its variable: logged at start. */
  readonly warnings: readonly string[];
}

export interface DatabaseSettings {
  /** DATABASE_URL; undefined: the embedded PostgreSQL outside production, none (503) in production. */
  readonly url: string | undefined;
}

export interface ClusterSettings {
  /** KUBECONFIG as given (the Kubernetes client reads the files it names). */
  readonly kubeconfig: string | undefined;
  /** KUBERNETES_SERVICE_HOST is set: the in-cluster configuration is available. */
  readonly inCluster: boolean;
}

export interface TlsSettings {
  /** TLS_CERT_FILE and TLS_KEY_FILE, both or neither: undefined serves plain HTTP. */
  readonly files: { readonly certFile: string; readonly keyFile: string } | undefined;
}

export interface RuntimeSettings {
  /** FUNCTION_TARGET: the function a container serves (checked against the functions where it is used). */
  readonly functionTarget: string | undefined;
  /** K_SERVICE and K_REVISION, which Knative sets, for the start-up log. */
  readonly knativeService: string | undefined;
  readonly knativeRevision: string | undefined;
}

/** Parses the whole environment into frozen settings; throws ConfigError naming the first bad variable. */
export function loadSettings(env: Environment): Settings {
  const warnings: string[] = [];
  const setting = settingReader(env, warnings);
  const server = loadServerConfig(env, warnings);
  return deepFreeze({
    server,
    adminSecret: loadAdminSecretSettings(env),
    identity: loadIdentityConfig(env, server),
    database: { url: databaseUrl(setting) },
    runHistory: loadRunHistorySettings(env),
    audit: loadAuditSettings(env),
    login: loadLoginThrottleSettings(env),
    cluster: {
      kubeconfig: setting.text('KUBECONFIG'),
      inCluster: setting.text('KUBERNETES_SERVICE_HOST') !== undefined,
    },
    tls: { files: tlsFiles(setting) },
    runtime: { functionTarget: env.FUNCTION_TARGET, knativeService: env.K_SERVICE, knativeRevision: env.K_REVISION },
    tracing: loadTracingSettings(env),
    console: loadConsoleSettings(env, server.port),
    outbound: loadOutboundSettings(env),
    warnings,
  });
}

/**
 * DATABASE_URL as the PostgreSQL driver reads it: a `postgres://` or `postgresql://` URL with a host
 * (or a `socket:` path). Anything else stops start-up here, naming the variable, rather than start a
 * server whose first run request would fail. The value is not repeated: it may hold a password.
 */
function databaseUrl(setting: SettingReader): string | undefined {
  const text = setting.text('DATABASE_URL');
  if (text === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  const usable =
    url !== undefined &&
    (((url.protocol === 'postgres:' || url.protocol === 'postgresql:') && url.hostname !== '') ||
      url.protocol === 'socket:');
  if (!usable) {
    throw new ConfigError(
      'DATABASE_URL',
      'is not a postgres://user:password@host:port/database URL (or socket:/path); the value is not shown, it may hold a password',
    );
  }
  return text;
}

function tlsFiles(setting: SettingReader): TlsSettings['files'] {
  const certFile = setting.text('TLS_CERT_FILE');
  const keyFile = setting.text('TLS_KEY_FILE');
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined) throw new ConfigError('TLS_CERT_FILE', 'is required when TLS_KEY_FILE is set');
  if (keyFile === undefined) throw new ConfigError('TLS_KEY_FILE', 'is required when TLS_CERT_FILE is set');
  return { certFile, keyFile };
}

function deepFreeze<T extends object>(value: T): T {
  for (const member of Object.values(value)) {
    if (typeof member === 'object' && member !== null && !Object.isFrozen(member)) deepFreeze(member);
  }
  return Object.freeze(value);
}
