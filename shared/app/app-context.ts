import { loadServerConfig, type Environment, type ServerConfig } from '../config/server-config.ts';
import type { AdminSettingsSource } from '../config/admin-settings-source.ts';
import { adminSettingsFromEnvironment } from '../config/admin-settings-from-environment.ts';
import { AdminTokenAuthenticator } from '../auth/admin-token.ts';
import { RequestAuthenticator } from '../auth/request-authenticator.ts';
import { PasswordVerifier } from '../auth/password-verifier.ts';
import { LoginThrottle } from '../auth/login-throttle.ts';
import { createLogger, logLevelFromEnv, type Logger } from '../logging/logger.ts';
import { routeTable, type RouteDefinition } from '../routes/route-table.ts';

/** Everything the functions share in one process: configuration, the verifier, the logger. */
export interface AppContext {
  config: ServerConfig;
  routes: RouteDefinition[];
  logger: Logger;
  adminSettings: AdminSettingsSource;
  adminTokens: AdminTokenAuthenticator;
  authenticator: RequestAuthenticator;
  passwordVerifier: PasswordVerifier;
  loginThrottle: LoginThrottle;
  close(): Promise<void>;
}

export interface AppContextOptions {
  logger?: Logger;
  /** Overrides where the admin settings come from (tests, external secret sources). */
  adminSettings?: AdminSettingsSource;
}

/** Builds the shared context from the environment; throws ConfigError on a bad value. */
export async function createAppContext(env: Environment, options: AppContextOptions = {}): Promise<AppContext> {
  const logger = options.logger ?? createLogger({ level: logLevelFromEnv(env.LOG_LEVEL) });
  const config = loadServerConfig(env);
  const adminSettings = options.adminSettings ?? adminSettingsFromEnvironment(env, config, logger);
  const adminTokens = new AdminTokenAuthenticator(adminSettings, config.apiBaseUrl);
  const authenticator = new RequestAuthenticator([adminTokens]);
  // A rotated key or a disabled account must take effect at once, not when cached entries expire.
  const unsubscribe = adminSettings.onChange(() => authenticator.forgetVerifiedTokens());
  const passwordVerifier = new PasswordVerifier();
  return {
    config,
    routes: routeTable(config.apiGroup),
    logger,
    adminSettings,
    adminTokens,
    authenticator,
    passwordVerifier,
    loginThrottle: new LoginThrottle(),
    async close() {
      unsubscribe();
      await passwordVerifier.close();
      await adminSettings.close();
    },
  };
}
