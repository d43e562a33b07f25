import type { Principal } from '../../auth/principal.ts';
import type { PrincipalType } from './run.ts';

/** Who a run records as having started it: `admin`, the OIDC username, or the ServiceAccount's user name. */
export function runPrincipal(principal: Principal): { principal: string; principalType: PrincipalType } {
  return { principal: principal.type === 'admin' ? 'admin' : principal.name, principalType: principal.type };
}
