// `platform-api hash-password`: a bcrypt hash for api.adminAccount.passwordHash (ADMIN_ACCOUNT_PASSWORD_HASH).
import bcrypt from 'bcryptjs';
import { hashPasswordForAdminAccount, readNewPasswordFromTerminal, readPasswordFromPipe } from './password-prompt.ts';

/** The bcrypt costs the command takes (10 is recommended). */
export const BCRYPT_COSTS = { min: 4, max: 31, recommended: 10 } as const;

/** Whether `cost` is a bcrypt cost the command takes. */
export function isBcryptCost(cost: number): boolean {
  return Number.isInteger(cost) && cost >= BCRYPT_COSTS.min && cost <= BCRYPT_COSTS.max;
}

/** Reads the password (no echo on a terminal, the first line of a pipe) and resolves with its `$2a$` hash. */
export async function hashPasswordCommand(cost: number): Promise<string> {
  const password = process.stdin.isTTY ? await readNewPasswordFromTerminal() : await readPasswordFromPipe();
  return hashPasswordForAdminAccount(bcrypt, password, cost);
}
