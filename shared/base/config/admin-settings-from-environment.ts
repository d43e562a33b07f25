import { adminSettingsWarnings, parseAdminAccountSettings, type AdminSettingValues } from './admin-account-settings.ts';
import { FixedAdminSettingsSource, type AdminSettingsSource } from './admin-settings-source.ts';
import { devModeAdminValues, type ServerConfig } from './server-config.ts';
import type { Logger } from '../logging/logger.ts';

/**
 * The admin settings from environment variables (a Kubernetes Secret mounted as env), as the
 * configuration captured them at start, or those of local development mode. Fixed: rotation
 * happens by the chart's checksum roll-out.
 */
export function adminSettingsFromEnvironment(
  environmentValues: AdminSettingValues,
  config: ServerConfig,
  logger: Logger,
): AdminSettingsSource {
  const values = config.devMode ? devModeAdminValues() : environmentValues;
  const settings = parseAdminAccountSettings(values);
  reportLocalDevelopmentMode(config, logger);
  reportAdminSettings(settings, config, logger);
  return new FixedAdminSettingsSource(settings, config.devMode ? 'local development mode' : 'environment variables');
}

/**
 * Says whether local development mode is on, or which admin variables turned it off. Only for the
 * settings taken from the environment: there one variable given (say ADMIN_ACCOUNT_TOKEN_TTL=15s) is
 * a partial configuration that silently loses the known password. A secret source (ADMIN_SECRET_SOURCE
 * `file:`, `kubernetes:`, `aws-secretsmanager:`) holds all four keys, and says where they come from
 * itself; the fleet hands one to each replica, which would otherwise warn of what the fleet chose.
 */
function reportLocalDevelopmentMode(config: ServerConfig, logger: Logger): void {
  if (config.devMode) {
    logger.warn(
      'local development mode: admin account enabled with password "admin"; signing key generated in memory, so tokens die with this process',
    );
  } else if (config.devModeOffBy.length > 0) {
    // Say why, or the first login's 403 looks like a bug.
    logger.warn(
      `local development mode is off because ${config.devModeOffBy.join(', ')} ${config.devModeOffBy.length === 1 ? 'is' : 'are'} set: the admin account uses the admin variables as given (no password "admin"; set ADMIN_ACCOUNT_PASSWORD_HASH from \`npx platform-api hash-password\`, or unset them all for local development mode)`,
    );
  }
}

/** Logs what an operator must know about the admin settings in force (never the secrets). */
export function reportAdminSettings(
  settings: ReturnType<typeof parseAdminAccountSettings>,
  config: ServerConfig,
  logger: Logger,
): void {
  for (const warning of adminSettingsWarnings(settings)) logger.warn(warning);
  if (!config.devMode && settings.enabled && settings.signingKeyGenerated) {
    logger.warn(
      'ADMIN_ACCOUNT_TOKEN_SIGNING_KEY is empty: a key was generated for this process only; admin tokens fail on other replicas and after a restart',
    );
  }
  logger.info('admin account', { enabled: settings.enabled, tokenTtlSeconds: settings.tokenTtlSeconds });
}
