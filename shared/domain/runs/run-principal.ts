import type { Principal } from '../../auth/principal.ts';
import type { PrincipalType } from './run.ts';

/** Who a run records as having started it: `admin`, the OIDC username, or the ServiceAccount's user name. */
export function runPrincipal(principal: Principal): { principal: string; principalType: PrincipalType } {
  // Its routes (auth `task-result-token`) start no run and record no principal.
  if (principal.type === 'runtask') throw new Error(`${principal.name} is no principal a run records`);
  return { principal: principal.type === 'admin' ? 'admin' : principal.name, principalType: principal.type };
}
