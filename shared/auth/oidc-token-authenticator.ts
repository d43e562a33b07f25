import { jwtVerify, type JWTPayload } from 'jose';
import type { OidcSettings } from '../base/config/identity-config.ts';
import { ApiError } from '../base/http/api-error.ts';
import type { Authentication, TokenAuthenticator, UnverifiedClaims } from './authenticator.ts';
import { describeJoseError } from './jose-error-message.ts';
import type { OidcKeySet } from './oidc-key-set.ts';
import { apiError } from '../base/http/error-catalogue.ts';

// Public-key algorithms only: a provider's JWKS never holds an HMAC secret, and `none` is never valid.
const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/**
 * Verifies ID tokens of the external identity provider (it owns tokens whose `iss` is
 * `OIDC_ISSUER_URL`): signature against the provider's JWKS, issuer, expiry, and an audience
 * that is one of the configured client IDs.
 */
export class OidcTokenAuthenticator implements TokenAuthenticator {
  readonly #settings: OidcSettings;
  readonly #keys: OidcKeySet;

  constructor(settings: OidcSettings, keys: OidcKeySet) {
    this.#settings = settings;
    this.#keys = keys;
  }

  get ownedIssuer(): string {
    return `OIDC tokens: ${JSON.stringify(this.#settings.issuerUrl)}`;
  }

  async authenticate(token: string, claims: UnverifiedClaims): Promise<Authentication | null> {
    const { issuerUrl, clientId, cliClientId, usernameClaim, usernamePrefix, groupsPrefix } = this.#settings;
    if (claims.iss !== issuerUrl) return null;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.#keys.getKey, {
        algorithms: ALGORITHMS,
        issuer: issuerUrl,
        audience: [...new Set([clientId, cliClientId])],
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw apiError('InvalidToken', describeJoseError(error));
    }
    const name = payload[usernameClaim];
    if (typeof name !== 'string' || name === '') {
      throw apiError('MissingUsernameClaim', `ID token has no "${usernameClaim}" claim (OIDC_USERNAME_CLAIM)`);
    }
    // The name is recorded (a run's principal, the audit trail) in text columns, which cannot hold
    // NUL: a principal that cannot be recorded does not act.
    if (name.includes('\u0000')) {
      throw apiError(
        'InvalidUsernameClaim',
        `ID token's "${usernameClaim}" claim (OIDC_USERNAME_CLAIM) contains the NUL character (U+0000)`,
      );
    }
    // Prefixed as kube-apiserver's --oidc-username-prefix and --oidc-groups-prefix: a claim cannot
    // read as the admin account or a ServiceAccount in any record.
    return {
      principal: {
        type: 'oidc',
        name: usernamePrefix + name,
        groups: groupClaim(payload.groups).map((group) => groupsPrefix + group),
        claims: payload,
        expiresAt: payload.exp! * 1000,
      },
      cacheUntil: payload.exp! * 1000,
    };
  }
}

/** The strings of a `groups` claim (a list of strings, or one string); nothing else names a group. */
function groupClaim(groups: unknown): string[] {
  if (typeof groups === 'string') return [groups];
  return Array.isArray(groups) ? groups.filter((group): group is string => typeof group === 'string') : [];
}
