import type { Authentication, TokenAuthenticator } from '../../auth/authenticator.ts';
import type { Principal } from '../../auth/principal.ts';
import { projectTokenOf } from './token-credentials.ts';

/** The user extra that names the Project token a request came with (the audit trail's `user.extra`): never its value. */
export function projectTokenExtraKey(apiGroup: string): string {
  return `${apiGroup}/project-token`;
}

/**
 * Wraps a token authenticator so that a Project token's principal says which token it is (in its extra,
 * which the audit trail records), and so that this instance listens for revocations (`listening`)
 * before such a token is reviewed (its unverified `sub`, which a ServiceAccount token carries, names
 * it) and in any case before it is cached: a revocation announced afterwards always reaches its cache.
 */
export function withProjectTokens(
  authenticator: TokenAuthenticator,
  apiGroup: string,
  listening: () => Promise<void>,
): TokenAuthenticator {
  const key = projectTokenExtraKey(apiGroup);
  return {
    get ownedIssuer() {
      return authenticator.ownedIssuer;
    },
    async authenticate(token, claims): Promise<Authentication | null> {
      // Listening before the TokenReview is sent: a revocation that ends the token after the review set
      // out is then always heard, whichever arrives first (the request authenticator drops the answer).
      if (typeof claims.sub === 'string' && projectTokenOf(claims.sub)) await listening();
      const result = await authenticator.authenticate(token, claims);
      if (result === null || result.principal.type !== 'serviceaccount') return result;
      const projectToken = projectTokenOf(result.principal.name);
      if (!projectToken) return result;
      await listening();
      return {
        ...result,
        principal: { ...result.principal, extra: { ...result.principal.extra, [key]: [projectToken.name] } },
      };
    },
  };
}

/** The Project token a principal authenticated with, from the extra `withProjectTokens` set. */
export function projectTokenUsed(
  principal: Principal,
  apiGroup: string,
): { project: string; name: string } | undefined {
  if (principal.type !== 'serviceaccount' || !principal.extra[projectTokenExtraKey(apiGroup)]) return undefined;
  return projectTokenOf(principal.name);
}
