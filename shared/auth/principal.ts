/** Who made a request, after authentication. Dispatch and authorisation switch on `type`. */
export type Principal = AdminPrincipal | OidcPrincipal | ServiceAccountPrincipal;

/** The built-in admin account; bypasses every authorisation check (spec). */
export interface AdminPrincipal {
  type: 'admin';
  /** Recorded on runs as `admin`. */
  name: 'admin';
}

/** A user of the external identity provider, mapped to ServiceAccounts through annotations. */
export interface OidcPrincipal {
  type: 'oidc';
  /** The configured username claim's value; recorded on runs. */
  name: string;
  claims: Record<string, unknown>;
}

/** A Kubernetes ServiceAccount (or any user the cluster's TokenReview vouches for). */
export interface ServiceAccountPrincipal {
  type: 'serviceaccount';
  /** e.g. `system:serviceaccount:<ns>:<name>`; recorded on runs. */
  name: string;
  uid: string;
  groups: string[];
  extra: Record<string, string[]>;
}
