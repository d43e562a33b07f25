import { mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ADMIN_SETTING_KEYS,
  type AdminSettingValues,
  generateSigningKey,
} from '../../../shared/base/config/admin-account-settings.ts';
import { devModeAdminValues } from '../../../shared/base/config/server-config.ts';

/**
 * The local fleet's one secret source: a folder with one file per admin key, as a mounted
 * Kubernetes Secret would be, read by every function process through
 * `ADMIN_SECRET_SOURCE=file:<folder>`. Created once with the development settings (password
 * `admin`) and a generated signing key; kept as it is afterwards, so tokens survive restarts.
 * Returns whether it was created now.
 */
export async function ensureAdminSecretFolder(folder: string): Promise<boolean> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const present = new Set(await readdir(folder));
  const missing = ADMIN_SETTING_KEYS.filter((key) => !present.has(key));
  if (missing.length === 0) return false;
  const values: AdminSettingValues = { ...devModeAdminValues(), ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: signingKeyText() };
  for (const key of missing) await replaceFile(folder, key, values[key]!);
  return true;
}

/**
 * Writes a new signing key into the folder. Every process following it switches within its
 * poll interval, and every admin token signed with the old key is then refused.
 */
export async function rotateSigningKey(folder: string): Promise<void> {
  await replaceFile(folder, 'ADMIN_ACCOUNT_TOKEN_SIGNING_KEY', signingKeyText());
}

function signingKeyText(): string {
  return new TextDecoder().decode(generateSigningKey());
}

// Written beside, then renamed over: a reader sees the old file or the new one, never half of one.
async function replaceFile(folder: string, key: string, value: string): Promise<void> {
  const temporary = join(folder, `.${key}.${process.pid}.tmp`);
  await writeFile(temporary, value, { mode: 0o600 });
  await rename(temporary, join(folder, key));
}
