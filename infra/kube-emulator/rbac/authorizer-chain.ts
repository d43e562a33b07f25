// The authorizer union of a kube-apiserver: members of system:masters are always allowed, then RBAC decides.
import type { AuthorizationAttributes, Decision, RbacAuthorizer } from './rbac-authorizer.ts';
import { MASTERS_GROUP } from '../reviews/user-info.ts';

/** Authorizes a request the way the API server's authorizer chain does. */
export function authorize(rbac: RbacAuthorizer, attributes: AuthorizationAttributes): Decision {
  if (attributes.user.groups.includes(MASTERS_GROUP)) return { allowed: true, reason: '' };
  return rbac.authorize(attributes);
}
