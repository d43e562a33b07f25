import { createHash, randomBytes } from 'node:crypto';
import { ConfigError } from './config-error.ts';
import { settingReader } from './setting-values.ts';

/** The four secret keys the API server reads at start (spec: "Secret keys read by the API server"). */
export const ADMIN_SETTING_KEYS = [
  'ADMIN_ACCOUNT_ENABLED',
  'ADMIN_ACCOUNT_PASSWORD_HASH',
  'ADMIN_ACCOUNT_TOKEN_SIGNING_KEY',
  'ADMIN_ACCOUNT_TOKEN_TTL',
] as const;

export type AdminSettingKey = (typeof ADMIN_SETTING_KEYS)[number];
export type AdminSettingValues = Partial<Record<AdminSettingKey, string>>;

/** The admin account as configured at one moment; replaced whole when the secret is rotated. */
export interface AdminAccountSettings {
  enabled: boolean;
  /** bcrypt hash; empty means no password can succeed. */
  passwordHash: string;
  /** Whether the hash has a prefix the login comparison accepts (`$2a$` or `$2b$`). */
  passwordHashUsable: boolean;
  signingKey: Uint8Array;
  /** A short digest of the signing key, so caches can tell keys apart without holding the key twice. */
  signingKeyId: string;
  tokenTtlSeconds: number;
  /** Accepted values spelled the deprecated way (ADMIN_ACCOUNT_ENABLED=yes), to warn of at start and on rotation. */
  settingWarnings: readonly string[];
  /** True when the key was generated in memory at start (local development, or an empty setting). */
  signingKeyGenerated: boolean;
}

/** The fixed, known hash of the password `admin` used in local development mode (cost 10, `$2a$`). */
export const DEV_MODE_PASSWORD_HASH = '$2a$10$ZZZENQGf5u/kuXcPFcoaC.6vZBkQJFDnFPKwcKxbmmJt9Wdg0kwQe';

/**
 * ADMIN_ACCOUNT_TOKEN_TTL's range: the spec allows more than 24h; a year is the most an operator
 * would give a bearer token that cannot be revoked one by one (rotate the signing key for that).
 */
export const TOKEN_TTL_BOUNDS = { fallback: '24h', min: '1s', max: '8760h', example: '24h' } as const;
const MIN_SIGNING_KEY_BYTES = 32;
const BCRYPT_HASH = /^\$2[abxy]\$\d\d\$[./A-Za-z0-9]{53}$/;
const ACCEPTED_PREFIXES = ['$2a$', '$2b$'];

/** Parses the admin settings from their secret keys; throws ConfigError naming the bad key. */
export function parseAdminAccountSettings(values: AdminSettingValues): AdminAccountSettings {
  const settingWarnings: string[] = [];
  const setting = settingReader(values, settingWarnings);
  const enabled = setting.boolean('ADMIN_ACCOUNT_ENABLED', {
    fallback: true,
    formerly: { true: ['1', 'yes'], false: ['0', 'no'] },
  });
  const passwordHash = setting.text('ADMIN_ACCOUNT_PASSWORD_HASH') ?? '';
  if (passwordHash !== '' && !BCRYPT_HASH.test(passwordHash)) {
    throw new ConfigError('ADMIN_ACCOUNT_PASSWORD_HASH', 'is not a bcrypt hash (expected $2a$<cost>$<53 characters>)');
  }
  const ttlMs = setting.duration('ADMIN_ACCOUNT_TOKEN_TTL', TOKEN_TTL_BOUNDS);
  const keyText = values.ADMIN_ACCOUNT_TOKEN_SIGNING_KEY ?? '';
  const signingKeyGenerated = keyText === '';
  const signingKey = signingKeyGenerated ? generateSigningKey() : new TextEncoder().encode(keyText);
  if (signingKey.byteLength < MIN_SIGNING_KEY_BYTES) {
    throw new ConfigError(
      'ADMIN_ACCOUNT_TOKEN_SIGNING_KEY',
      `is ${signingKey.byteLength} bytes; HS256 needs at least ${MIN_SIGNING_KEY_BYTES} (the chart generates 64 characters)`,
    );
  }
  return {
    enabled,
    passwordHash,
    passwordHashUsable: ACCEPTED_PREFIXES.some((prefix) => passwordHash.startsWith(prefix)),
    signingKey,
    signingKeyId: createHash('sha256').update(signingKey).digest('base64url').slice(0, 16),
    tokenTtlSeconds: Math.floor(ttlMs / 1000),
    settingWarnings,
    signingKeyGenerated,
  };
}

/** Warnings an operator must see at start-up for settings that are accepted but will not work as hoped. */
export function adminSettingsWarnings(settings: AdminAccountSettings): string[] {
  const warnings = [...settings.settingWarnings];
  if (!settings.enabled) return warnings;
  if (settings.passwordHash === '') {
    warnings.push('ADMIN_ACCOUNT_PASSWORD_HASH is empty: no password can log in as admin.');
  } else if (!settings.passwordHashUsable) {
    warnings.push(
      `ADMIN_ACCOUNT_PASSWORD_HASH has the prefix ${settings.passwordHash.slice(0, 4)}; only $2a$ and $2b$ are accepted, so every admin login will fail with 403. ` +
        'Re-hash with `npx platform-api hash-password` or replace the prefix with $2a$.',
    );
  }
  return warnings;
}

/** A random 64-character signing key, the same length the chart generates. */
export function generateSigningKey(): Uint8Array {
  return new TextEncoder().encode(randomBytes(48).toString('base64url'));
}
