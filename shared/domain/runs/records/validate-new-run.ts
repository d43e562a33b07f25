import { PRINCIPAL_TYPES, RUN_TYPES } from '../run.ts';
import type { NewRun } from '../run.ts';
import { InvalidRunError } from '../run-errors.ts';

const SERVICE_ACCOUNT_PRINCIPAL = /^system:serviceaccount:[^:\s]+:[^:\s]+$/;

/** Checks a new run's fields, including that the principal's form matches its type; throws `InvalidRunError`. */
export function validateNewRun(run: NewRun): void {
  for (const field of ['project', 'workspace', 'principal'] as const) {
    if (typeof run[field] !== 'string' || run[field] === '') throw new InvalidRunError(`${field} is required`);
  }
  if (!RUN_TYPES.includes(run.type)) throw new InvalidRunError(`type must be one of ${RUN_TYPES.join(', ')}`);
  if (!PRINCIPAL_TYPES.includes(run.principalType)) {
    throw new InvalidRunError(`principalType must be one of ${PRINCIPAL_TYPES.join(', ')}`);
  }
  if (run.principalType === 'admin' && run.principal !== 'admin') {
    throw new InvalidRunError('the admin account is recorded as principal "admin"');
  }
  if (run.principalType === 'serviceaccount' && !SERVICE_ACCOUNT_PRINCIPAL.test(run.principal)) {
    throw new InvalidRunError('a ServiceAccount is recorded as "system:serviceaccount:<namespace>:<name>"');
  }
  // An OIDC username must not pass itself off as the admin account, a built-in or ServiceAccount identity
  // (the server names OIDC users with OIDC_USERNAME_PREFIX, which can make neither).
  if (run.principalType === 'oidc' && (run.principal === 'admin' || run.principal.startsWith('system:'))) {
    throw new InvalidRunError('an OIDC username may not be "admin" or start with "system:"');
  }
}
