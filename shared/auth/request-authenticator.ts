import { decodeJwt } from 'jose';
import type { Authentication, TokenAuthenticator, UnverifiedClaims } from './authenticator.ts';
import type { Principal } from './principal.ts';
import { TokenCache } from './token-cache.ts';
import { apiError } from '../base/http/error-catalogue.ts';

/**
 * The one verifier every function shares: tries each principal type's authenticator in turn
 * (each answers only for the issuers it owns), caches what it verified and coalesces
 * concurrent verifications of the same token.
 */
export class RequestAuthenticator {
  readonly #authenticators: TokenAuthenticator[];
  readonly #cache: TokenCache;
  readonly #inFlight = new Map<string, Promise<Authentication>>();
  readonly #onLookup: ((hit: boolean) => void) | undefined;

  /** `onLookup` hears whether each token was found verified in the cache (the cache metrics). */
  constructor(authenticators: TokenAuthenticator[], cache = new TokenCache(), onLookup?: (hit: boolean) => void) {
    this.#authenticators = authenticators;
    this.#cache = cache;
    this.#onLookup = onLookup;
  }

  /**
   * Hears each authenticated request's principal and client address (a Project token's last use); set
   * once by the context. Called on the hot path: it must only look, and write rarely.
   */
  onUse: ((principal: Principal, clientAddress: string) => void) | undefined;

  /** The principal of a token verified earlier and still cached, without waiting; else undefined. */
  cachedPrincipal(token: string): Principal | undefined {
    const principal = this.#cache.get(token)?.principal;
    // A miss here is counted by `authenticate`, which the caller goes on to.
    if (principal) this.#onLookup?.(true);
    return principal;
  }

  /** Verifies a bearer token and returns its principal; throws ApiError 401/503 otherwise. */
  async authenticate(token: string): Promise<Principal> {
    const cached = this.#cache.get(token);
    this.#onLookup?.(cached !== undefined);
    if (cached) return cached.principal;
    let pending = this.#inFlight.get(token);
    if (pending === undefined) {
      pending = this.#verify(token).finally(() => this.#inFlight.delete(token));
      this.#inFlight.set(token, pending);
    }
    return (await pending).principal;
  }

  /** Forgets the tokens verified as the user `name`, at once (a revoked Project token, heard from any instance). */
  forgetUser(name: string): void {
    this.#cache.forgetUser(name);
  }

  /** Forgets the tokens verified as any user `matching` says (every Project token, when revocations may have gone unheard). */
  forgetUsers(matching: (name: string) => boolean): void {
    this.#cache.forgetUsers(matching);
  }

  /** Forgets every verified token (called when the admin settings or key change). */
  forgetVerifiedTokens(): void {
    this.#cache.clear();
  }

  async #verify(token: string): Promise<Authentication> {
    const revocationMark = this.#cache.revocationMark;
    const claims = readUnverifiedClaims(token);
    for (const authenticator of this.#authenticators) {
      const result = await authenticator.authenticate(token, claims);
      if (result !== null) {
        // A TokenReview sent before a revocation this instance learnt of meanwhile may still say yes: its
        // answer is older than the revocation, so it is neither cached again nor trusted (issue 46).
        if (this.#cache.revokedSince(result.principal.name, revocationMark))
          throw apiError('InvalidToken', 'the token was revoked while it was being verified');
        if (result.cacheUntil > Date.now()) this.#cache.set(token, result);
        return result;
      }
    }
    throw apiError('UnknownIssuer', this.#unknownIssuerMessage(claims.iss));
  }

  /**
   * Names the issuer the token carried beside those this server owns, so a token from another
   * process (another port, another API_BASE_URL) is recognised for what it is. The carried issuer
   * is quoted JSON-escaped and cut, as every echoed input is (it may be anything).
   */
  #unknownIssuerMessage(issuer: unknown): string {
    const carried = typeof issuer === 'string' ? JSON.stringify(issuer.slice(0, 128)) : 'none';
    const owned = this.#authenticators.flatMap((authenticator) => authenticator.ownedIssuer ?? []);
    return `token issuer ${carried} is not trusted${owned.length > 0 ? `; this server accepts ${owned.join(', ')}` : ''}`;
  }
}

function readUnverifiedClaims(token: string): UnverifiedClaims {
  // jose's error captures a stack trace, most of the CPU a refused garbage token would cost; it is
  // replaced by the answer below anyway.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return decodeJwt(token);
  } catch {
    throw apiError('InvalidToken', 'token is not a JWT');
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}
