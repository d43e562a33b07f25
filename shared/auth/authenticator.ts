import type { Principal } from './principal.ts';

/** The unverified payload of a JWT, read only to decide which authenticator owns it. */
export interface UnverifiedClaims {
  iss?: unknown;
  [claim: string]: unknown;
}

/** A verified principal and the moment (ms since the epoch) after which a cache must forget it. */
export interface Authentication {
  principal: Principal;
  cacheUntil: number;
}

/**
 * One credential type (k8s.io/apiserver style): returns the authentication, `null` for
 * "not mine", or throws an ApiError (401 for a bad token, 503 when the verifier's
 * infrastructure is unreachable).
 */
export interface TokenAuthenticator {
  authenticate(token: string, claims: UnverifiedClaims): Promise<Authentication | null>;
  /**
   * The issuer it owns when that is public knowledge (the server's own URL, the identity provider's),
   * so a refused token's answer can say which issuer was expected; e.g. `admin tokens: "https://…"`.
   */
  readonly ownedIssuer?: string;
}
