import type { Principal } from '../auth/principal.ts';
import { redactPath } from '../base/logging/redaction.ts';

/** What a request does to a Kubernetes-style resource, as a SubjectAccessReview names it. */
export interface ResourceAttributes {
  /** get, list, watch, create, update, patch, delete, deletecollection. */
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  /** Absent for cluster-scoped resources and for requests across all namespaces. */
  namespace?: string;
  name?: string;
}

/** A request to a path that is not a resource (`/internal/*`), with the lower-case HTTP verb. */
export interface NonResourceAttributes {
  nonResourcePath: string;
  verb: string;
}

export type AuthorizationAttributes = ResourceAttributes | NonResourceAttributes;

/**
 * Why a request was allowed, for the audit trail (`authorization.k8s.io/reason`): the reason in words,
 * and for an OIDC user the ServiceAccount whose permissions allowed it (recorded as the event's
 * `impersonatedUser`: the server acted with that account's rights on the user's behalf).
 */
export interface AuthorizationGrant {
  reason: string;
  asServiceAccount?: { namespace: string; name: string };
}

/** The admin account bypasses every authorization check (spec), and the audit trail says so. */
export const ADMIN_BYPASS: AuthorizationGrant = { reason: 'the admin account bypasses authorization' };

/**
 * Decides whether a principal may do something (k8s.io/apiserver style). Resolves with why it is
 * allowed; throws an ApiError: 403 (`Forbidden`) when denied, 503 when the decision cannot be made.
 */
export interface Authorizer {
  authorize(principal: Principal, attributes: AuthorizationAttributes): Promise<AuthorizationGrant>;
  /**
   * Whom a principal's requests are reviewed as: every permission (the admin's bypass), or the
   * Kubernetes users whose RBAC decides (a ServiceAccount; an OIDC user's mapped ServiceAccounts).
   * What a SelfSubjectRulesReview lists. Absent where the authorizer cannot say.
   */
  reviewedAs?(principal: Principal): ReviewedAs;
}

/** The users a principal is authorized as, or all permissions. */
export type ReviewedAs = { everything: true } | { everything: false; users: Array<{ user: string; groups: string[] }> };

/** Whether the attributes name a non-resource path. */
export function isNonResource(attributes: AuthorizationAttributes): attributes is NonResourceAttributes {
  return 'nonResourcePath' in attributes;
}

/**
 * The attributes in words, for messages (which the audit trail records as a refusal's reason):
 * `get /internal/x`, `list projects.platform.dev in team-a`; a path's credential-shaped segment redacted.
 */
export function describeAttributes(attributes: AuthorizationAttributes): string {
  if (isNonResource(attributes)) return `${attributes.verb} ${redactPath(attributes.nonResourcePath)}`;
  const resource = [attributes.resource, attributes.subresource].filter(Boolean).join('/');
  const qualified = attributes.group ? `${resource}.${attributes.group}` : resource;
  const named = attributes.name ? `${qualified} "${attributes.name}"` : qualified;
  return `${attributes.verb} ${named}${attributes.namespace ? ` in namespace "${attributes.namespace}"` : ''}`;
}
