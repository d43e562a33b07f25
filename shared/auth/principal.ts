/** Who made a request, after authentication. Dispatch and authorization switch on `type`. */
export type Principal = AdminPrincipal | OidcPrincipal | ServiceAccountPrincipal | RunTaskPrincipal;

/** What every principal carries besides its identity. */
interface CredentialLifetime {
  /**
   * When the credential it was authenticated with expires (ms since the epoch; its `exp`):
   * whatever it opened (a stream) ends then. Undefined for a token without `exp`.
   */
  expiresAt?: number;
}

/** The built-in admin account; bypasses every authorization check (spec). */
export interface AdminPrincipal extends CredentialLifetime {
  type: 'admin';
  /** Recorded on runs as `admin`. */
  name: 'admin';
}

/** A user of the external identity provider, mapped to ServiceAccounts through annotations. */
export interface OidcPrincipal extends CredentialLifetime {
  type: 'oidc';
  /**
   * `OIDC_USERNAME_PREFIX` and the configured username claim's value (`oidc:alice@example.com`):
   * recorded on runs and in the audit trail, never confusable with `admin` or a ServiceAccount.
   */
  name: string;
  /** `OIDC_GROUPS_PREFIX` and each string of the `groups` claim (`oidc:platform-eng`), for the record. */
  groups: string[];
  /** The token's claims as the provider issued them: what ServiceAccount mappings match (un-prefixed). */
  claims: Record<string, unknown>;
}

/** A Kubernetes ServiceAccount (or any user the cluster's TokenReview vouches for). */
export interface ServiceAccountPrincipal extends CredentialLifetime {
  type: 'serviceaccount';
  /** e.g. `system:serviceaccount:<ns>:<name>`; recorded on runs. */
  name: string;
  uid: string;
  groups: string[];
  extra: Record<string, string[]>;
}

/**
 * A run task answering one request (issue 48): authenticated by the access token of that request, only on the
 * routes that take such a token (`auth: 'task-result-token'`), and bound to that one task result. It is no
 * principal of the cluster: it is never authorized by SubjectAccessReview and no other route accepts it.
 */
export interface RunTaskPrincipal extends CredentialLifetime {
  type: 'runtask';
  /** `runtask:<project>/<task>`, for the record (the audit trail, logs). */
  name: string;
  /** The task result the token was issued for, and its run. */
  taskResult: string;
  run: string;
  project: string;
  workspace: string;
}
