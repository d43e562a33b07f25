import type { Principal } from '../../auth/principal.ts';
import type { AuthorizationDecision } from '../../authz/authorization-decision.ts';

/**
 * Whoever asks for an approval to be granted, withdrawn or acted on (a write of a Rollout, the approve route, a
 * plan's apply): who it is, what the chain decided for it, and its request's audit notes, where the judge records
 * both principals.
 */
export interface ApprovalCaller {
  principal: Principal;
  authorization: AuthorizationDecision;
  auditAnnotations?: Record<string, string>;
}

/** How an approval names its approver: `admin`, the OIDC username (prefixed), or the ServiceAccount's user name. */
export function approverName(principal: Principal): string {
  return principal.name;
}

/** The groups an approval records of its approver (OIDC groups with their prefix, a ServiceAccount's); the admin has none. */
export function approverGroups(principal: Principal): string[] {
  return 'groups' in principal ? principal.groups : [];
}
