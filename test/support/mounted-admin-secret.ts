import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { SIGNING_KEY, adminHash } from './admin-fixtures.ts';
import { writeMountedSecret } from './mounted-secret-folder.ts';

export interface MountedAdminSecret {
  /** The folder to name in ADMIN_SECRET_SOURCE (`file:<folder>`). */
  folder: string;
  /** Writes the Secret again as the kubelet would: the valid admin settings, with these keys changed. */
  write(overrides?: Record<string, string>): Promise<void>;
}

/**
 * The admin account's Secret mounted in a fresh temporary folder, holding valid settings (enabled,
 * the test password's hash, SIGNING_KEY, a 1 h TTL); removed after the test file.
 */
export async function mountedAdminSecret(prefix: string): Promise<MountedAdminSecret> {
  const folder = await mkdtemp(join(tmpdir(), prefix));
  afterAll(() => rm(folder, { recursive: true, force: true }));
  const write = (overrides: Record<string, string> = {}) =>
    writeMountedSecret(folder, {
      ADMIN_ACCOUNT_ENABLED: 'true',
      ADMIN_ACCOUNT_PASSWORD_HASH: adminHash(),
      ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: SIGNING_KEY,
      ADMIN_ACCOUNT_TOKEN_TTL: '1h',
      ...overrides,
    });
  await write();
  return { folder, write };
}
