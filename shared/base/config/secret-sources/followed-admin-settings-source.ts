import {
  ADMIN_SETTING_KEYS,
  parseAdminAccountSettings,
  type AdminAccountSettings,
  type AdminSettingValues,
} from '../admin-account-settings.ts';
import type { AdminSettingsSource } from '../admin-settings-source.ts';
import { reportAdminSettings } from '../admin-settings-from-environment.ts';
import { ConfigError } from '../config-error.ts';
import { requireAllAdminKeys } from './required-admin-keys.ts';
import type { ServerConfig } from '../server-config.ts';
import type { Logger } from '../../logging/logger.ts';
import type { SecretReading } from '../../metrics/metrics.ts';

export interface FollowedSecret {
  /** Where the secret lives, for logs and errors (never its contents). */
  description: string;
  /** Reads the secret's four keys now; a key the secret lacks is left undefined. */
  read(): Promise<AdminSettingValues>;
  /** Starts calling `changed` whenever the secret may have changed (watch or poll); returns a stop function. */
  follow(changed: () => void): () => void;
}

/**
 * Opens an external secret and keeps the admin settings in step with it. At start-up an
 * unreadable secret, a missing key or a bad value is a ConfigError. Later, a reading that fails
 * or is incomplete keeps the settings in force (logged as an error) rather than taking the
 * admin account down; a changed reading replaces the settings whole and tells the listeners.
 */
export async function followAdminSecret(
  secret: FollowedSecret,
  config: ServerConfig,
  logger: Logger,
  onReading?: (result: SecretReading) => void,
): Promise<AdminSettingsSource> {
  let values: AdminSettingValues;
  try {
    values = await secret.read();
  } catch (error) {
    throw new ConfigError('ADMIN_SECRET_SOURCE', `cannot read ${secret.description}: ${describeError(error)}`);
  }
  requireAllAdminKeys(values, secret.description);
  const settings = parseAdminAccountSettings(values);
  reportAdminSettings(settings, config, logger);
  logger.info('admin settings follow an external secret', { source: secret.description });
  const source = new FollowedAdminSettingsSource(secret, values, settings, logger, onReading);
  source.start();
  return source;
}

class FollowedAdminSettingsSource implements AdminSettingsSource {
  readonly description: string;
  readonly #secret: FollowedSecret;
  readonly #logger: Logger;
  readonly #listeners = new Set<(settings: AdminAccountSettings) => void>();
  #values: AdminSettingValues;
  #settings: AdminAccountSettings;
  #stop: () => void = () => {};
  #reading = false;
  #readAgain = false;
  #closed = false;
  readonly #onReading: ((result: SecretReading) => void) | undefined;

  constructor(
    secret: FollowedSecret,
    values: AdminSettingValues,
    settings: AdminAccountSettings,
    logger: Logger,
    onReading?: (result: SecretReading) => void,
  ) {
    this.#onReading = onReading;
    this.description = secret.description;
    this.#secret = secret;
    this.#values = values;
    this.#settings = settings;
    this.#logger = logger;
  }

  start(): void {
    this.#stop = this.#secret.follow(() => void this.#reload());
  }

  current(): AdminAccountSettings {
    return this.#settings;
  }

  onChange(listener: (settings: AdminAccountSettings) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stop();
    this.#listeners.clear();
  }

  // Readings never overlap: a change signalled during a reading triggers one more afterwards.
  async #reload(): Promise<void> {
    if (this.#reading) {
      this.#readAgain = true;
      return;
    }
    this.#reading = true;
    try {
      do {
        this.#readAgain = false;
        await this.#readOnce();
      } while (this.#readAgain && !this.#closed);
    } finally {
      this.#reading = false;
    }
  }

  async #readOnce(): Promise<void> {
    let values: AdminSettingValues;
    try {
      values = await this.#secret.read();
    } catch (error) {
      if (!this.#closed) {
        this.#onReading?.('failed');
        this.#logger.warn('cannot read the admin secret; the settings in force stay', {
          source: this.description,
          error: describeError(error),
        });
      }
      return;
    }
    if (this.#closed) return;
    const changedKeys = ADMIN_SETTING_KEYS.filter((key) => values[key] !== this.#values[key]);
    // Unchanged readings are not re-parsed: an empty signing key would otherwise be regenerated.
    if (changedKeys.length === 0) {
      this.#onReading?.('unchanged');
      return;
    }
    let settings: AdminAccountSettings;
    try {
      requireAllAdminKeys(values, this.description);
      settings = parseAdminAccountSettings(values);
    } catch (error) {
      this.#onReading?.('failed');
      this.#logger.error('the admin secret changed to something unusable; the settings in force stay', {
        source: this.description,
        error: describeError(error),
      });
      return;
    }
    this.#values = values;
    this.#settings = settings;
    this.#onReading?.('changed');
    this.#logger.info('admin secret changed; new settings in force', { source: this.description, changedKeys });
    for (const listener of this.#listeners) listener(settings);
  }
}

/** An error's message without its stack (SDK and fs errors carry no secret values). */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
