import { SignJWT, jwtVerify } from 'jose';
import type { AdminAccountSettings } from '../base/config/admin-account-settings.ts';
import type { Authentication, TokenAuthenticator, UnverifiedClaims } from './authenticator.ts';
import type { AdminSettingsSource } from '../base/config/admin-settings-source.ts';
import { describeJoseError } from './jose-error-message.ts';
import { apiError } from '../base/http/error-catalogue.ts';

const ADMIN_SUBJECT = 'admin';
const ADMIN_CLAIMS = new Set(['iss', 'sub', 'iat', 'exp']);
/** Tolerated clock difference between instances for `iat`. */
const CLOCK_SKEW_SECONDS = 60;

/** Issues an admin JWT: HS256, claims exactly iss, sub=admin, iat, exp=iat+TTL (spec). */
export async function issueAdminToken(
  settings: AdminAccountSettings,
  issuer: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(issuer)
    .setSubject(ADMIN_SUBJECT)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + settings.tokenTtlSeconds)
    .sign(settings.signingKey);
}

/**
 * Verifies admin tokens: the signature with the key in force (HS256 only), then each of the four
 * claims. While the account is disabled no admin token is accepted, however it was signed.
 */
export class AdminTokenAuthenticator implements TokenAuthenticator {
  readonly #settings: AdminSettingsSource;
  readonly #issuer: string;

  constructor(settings: AdminSettingsSource, issuer: string) {
    this.#settings = settings;
    this.#issuer = issuer;
  }

  /** The admin token's issuer, which marks a token as an admin token. */
  get issuer(): string {
    return this.#issuer;
  }

  get ownedIssuer(): string {
    return `admin tokens: ${JSON.stringify(this.#issuer)}`;
  }

  async authenticate(token: string, claims: UnverifiedClaims): Promise<Authentication | null> {
    if (claims.iss !== this.#issuer) return null;
    const settings = this.#settings.current();
    if (!settings.enabled) throw apiError('AdminAccountDisabled', 'the admin account is disabled');
    let payload;
    try {
      ({ payload } = await jwtVerify(token, settings.signingKey, {
        algorithms: ['HS256'],
        issuer: this.#issuer,
        subject: ADMIN_SUBJECT,
        requiredClaims: ['iss', 'sub', 'iat', 'exp'],
      }));
    } catch (error) {
      throw apiError('InvalidToken', describeJoseError(error));
    }
    const { iat, exp } = payload as { iat: number; exp: number };
    const now = Math.floor(Date.now() / 1000);
    const unexpected = Object.keys(payload).filter((claim) => !ADMIN_CLAIMS.has(claim));
    if (unexpected.length > 0)
      throw apiError('InvalidToken', `admin token carries unexpected claims: ${unexpected.join(', ')}`);
    if (iat > now + CLOCK_SKEW_SECONDS) throw apiError('InvalidToken', 'admin token was issued in the future');
    // A token may not outlive the TTL in force: lowering the TTL shortens live sessions too.
    if (exp <= iat || exp - iat > settings.tokenTtlSeconds) {
      throw apiError('InvalidToken', 'admin token lifetime does not match the configured TTL');
    }
    return { principal: { type: 'admin', name: 'admin', expiresAt: exp * 1000 }, cacheUntil: exp * 1000 };
  }
}
