// `platform-api hash-password`: a bcrypt hash for api.adminAccount.passwordHash (ADMIN_ACCOUNT_PASSWORD_HASH).
// Plain JavaScript, like the kubeconfig command, so that it runs on whatever Node the operator has.
import bcrypt from 'bcryptjs';
import { hashPasswordForAdminAccount, readPasswordFromPipe, readPasswordFromTerminal } from './password-prompt.js';

/** Whether `cost` is a bcrypt cost the command takes (10 is recommended). */
export function isBcryptCost(cost) {
  return Number.isInteger(cost) && cost >= 4 && cost <= 31;
}

/** Reads the password (no echo on a terminal, the first line of a pipe) and resolves with its `$2a$` hash. */
export async function hashPasswordCommand(cost) {
  const password = process.stdin.isTTY ? await readPasswordFromTerminal() : await readPasswordFromPipe();
  return hashPasswordForAdminAccount(bcrypt, password, cost);
}
