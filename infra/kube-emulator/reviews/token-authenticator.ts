// Bearer-token authentication of callers and of TokenReview: the admin token, tokens registered by tests, and
// ServiceAccount tokens issued through TokenRequest, tried in that order like an authenticator union.
import type { ServiceAccountTokens, TokenCheck } from './service-account-tokens.ts';
import { AUTHENTICATED_GROUP, MASTERS_GROUP } from './user-info.ts';
import type { UserInfo } from './user-info.ts';

/** A user registered for a static token. */
export interface RegisteredUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** The admin token's user: a cluster-admin through the system:masters group. */
export const ADMIN_USER: UserInfo = { username: 'kubernetes-admin', groups: [MASTERS_GROUP, AUTHENTICATED_GROUP] };

/** Authenticates bearer tokens. */
export class TokenAuthenticator {
  readonly #adminToken: string;
  readonly #serviceAccountTokens: ServiceAccountTokens;
  readonly #currentServiceAccountUid: (namespace: string, name: string) => string | undefined;
  readonly #registered = new Map<string, UserInfo>();

  constructor(
    adminToken: string,
    serviceAccountTokens: ServiceAccountTokens,
    currentServiceAccountUid: (namespace: string, name: string) => string | undefined,
  ) {
    this.#adminToken = adminToken;
    this.#serviceAccountTokens = serviceAccountTokens;
    this.#currentServiceAccountUid = currentServiceAccountUid;
  }

  /** The audiences the API server itself accepts (its issuer), used when a review names none. */
  get apiAudiences(): string[] {
    return [this.#serviceAccountTokens.issuer];
  }

  /** Registers a static token; the API server adds system:authenticated to its groups. */
  register(token: string, user: RegisteredUser): void {
    const groups = user.groups ?? [];
    this.#registered.set(token, {
      username: user.username,
      ...(user.uid ? { uid: user.uid } : {}),
      groups: groups.includes(AUTHENTICATED_GROUP) ? groups : [...groups, AUTHENTICATED_GROUP],
      ...(user.extra ? { extra: user.extra } : {}),
    });
  }

  /**
   * Authenticates a token for the requested audiences (the API server's own when none). Static tokens accept
   * any audience and echo the requested ones; ServiceAccount tokens must carry one of them in `aud`.
   */
  async authenticate(token: string, audiences: string[] = []): Promise<TokenCheck> {
    const targets = audiences.length > 0 ? audiences : this.apiAudiences;
    if (token === this.#adminToken) return { user: ADMIN_USER, audiences: targets };
    const registered = this.#registered.get(token);
    if (registered) return { user: registered, audiences: targets };
    if (token.split('.').length === 3)
      return this.#serviceAccountTokens.verify(token, targets, this.#currentServiceAccountUid);
    return { error: 'invalid bearer token' };
  }
}
