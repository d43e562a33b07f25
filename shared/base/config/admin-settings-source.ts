import type { AdminAccountSettings } from './admin-account-settings.ts';

/**
 * Where the admin settings in force come from. Sources that watch or poll an external secret
 * replace the settings whole when it changes; readers always call `current()` and never keep a copy.
 */
export interface AdminSettingsSource {
  /** The settings in force now. */
  current(): AdminAccountSettings;
  /** Called after every change; returns an unsubscribe function. */
  onChange(listener: (settings: AdminAccountSettings) => void): () => void;
  /** A description for the start-up log (never the secret itself). */
  readonly description: string;
  close(): Promise<void>;
}

/** Settings read once at start (environment variables): rotation happens by restarting. */
export class FixedAdminSettingsSource implements AdminSettingsSource {
  readonly description: string;
  #settings: AdminAccountSettings;

  constructor(settings: AdminAccountSettings, description: string) {
    this.#settings = settings;
    this.description = description;
  }

  current(): AdminAccountSettings {
    return this.#settings;
  }

  onChange(): () => void {
    return () => {};
  }

  async close(): Promise<void> {}
}
