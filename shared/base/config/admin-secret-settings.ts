import { ADMIN_SETTING_KEYS, type AdminSettingValues } from './admin-account-settings.ts';
import { ConfigError } from './config-error.ts';
import type { Environment } from './environment.ts';
import { settingReader } from './setting-values.ts';

/**
 * How often each followed source is re-read when no watch event says so: the documented bound on
 * how long a rotated secret takes to be in force (docs/deployment.md, "Rotation").
 */
export const DEFAULT_POLL_INTERVAL_MS = { file: 5_000, kubernetes: 30_000, 'aws-secretsmanager': 30_000 } as const;
/** A poll is a timer: at least 100 ms apart, and at most an hour (the longest a rotation may take to apply). */
const POLL_INTERVAL_BOUNDS = { min: '100ms', max: '1h', example: '30s' } as const;

/** Where the admin settings come from, as ADMIN_SECRET_SOURCE names it. */
export type AdminSecretSourceSetting =
  /** Unset: the four environment variables (or local development mode); `env`: the same, all four required. */
  | { kind: 'environment'; allKeysRequired: boolean }
  | { kind: 'file'; folder: string; pollIntervalMs: number }
  | { kind: 'kubernetes'; namespace: string; name: string; pollIntervalMs: number }
  | { kind: 'aws-secretsmanager'; secretId: string; pollIntervalMs: number };

export interface AdminSecretSettings {
  source: AdminSecretSourceSetting;
  /**
   * The four keys as the environment gave them, captured once at start. Only the environment
   * source reads them; a followed source reads its own secret and may change while serving.
   */
  environmentValues: AdminSettingValues;
}

/** Reads ADMIN_SECRET_SOURCE, ADMIN_SECRET_POLL_INTERVAL and the four admin keys; throws ConfigError naming the bad variable. */
export function loadAdminSecretSettings(env: Environment): AdminSecretSettings {
  return {
    source: parseSource(env),
    environmentValues: Object.fromEntries(ADMIN_SETTING_KEYS.map((key) => [key, env[key]])),
  };
}

function parseSource(env: Environment): AdminSecretSourceSetting {
  // Blank is not unset here: it turns local development mode off (server-config.ts), so it must name a source.
  const spec = env.ADMIN_SECRET_SOURCE?.trim();
  if (spec === undefined) return { kind: 'environment', allKeysRequired: false };
  if (spec === 'env') return { kind: 'environment', allKeysRequired: true };
  const separator = spec.indexOf(':');
  const kind = spec.slice(0, separator);
  const location = spec.slice(separator + 1).trim();
  if (separator === -1 || location === '') throw malformed(spec);
  if (kind === 'file') return { kind, folder: location, pollIntervalMs: pollInterval(env, kind) };
  if (kind === 'kubernetes') {
    const [namespace, name, extra] = location.split('/');
    if (!namespace || !name || extra !== undefined) throw malformed(spec);
    return { kind, namespace, name, pollIntervalMs: pollInterval(env, kind) };
  }
  if (kind === 'aws-secretsmanager') return { kind, secretId: location, pollIntervalMs: pollInterval(env, kind) };
  throw malformed(spec);
}

// Read only for a followed source, as nothing else polls.
function pollInterval(env: Environment, kind: keyof typeof DEFAULT_POLL_INTERVAL_MS): number {
  return settingReader(env).duration('ADMIN_SECRET_POLL_INTERVAL', {
    ...POLL_INTERVAL_BOUNDS,
    fallback: `${DEFAULT_POLL_INTERVAL_MS[kind]}ms`,
  });
}

function malformed(spec: string): ConfigError {
  return new ConfigError(
    'ADMIN_SECRET_SOURCE',
    `"${spec}" is not one of env, file:<folder>, kubernetes:<namespace>/<name>, aws-secretsmanager:<secret id>`,
  );
}
