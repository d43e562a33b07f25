import { ADMIN_SETTING_KEYS, type AdminSettingValues } from '../admin-account-settings.ts';
import { ConfigError } from '../config-error.ts';

/**
 * An explicit external secret must hold all four keys (spec: "must already contain all four
 * keys"): a missing one is an operator's mistake, not a wish for the default. Throws a
 * ConfigError naming every missing key and where it was looked for.
 */
export function requireAllAdminKeys(values: AdminSettingValues, where: string): void {
  const missing = ADMIN_SETTING_KEYS.filter((key) => values[key] === undefined);
  if (missing.length > 0) {
    throw new ConfigError(
      missing.join(', '),
      `missing from ${where}, which must hold all of ${ADMIN_SETTING_KEYS.join(', ')}`,
    );
  }
}
