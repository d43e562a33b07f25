// authentication.k8s.io/v1: TokenReview (is this token valid, and whose is it?) and SelfSubjectReview (who am I?).
import type { EmulatorContext } from '../emulator-context.ts';
import { parseJson } from '../http/http-messages.ts';
import type { JsonReply } from '../http/http-messages.ts';
import { badRequest } from '../http/status.ts';
import type { UserInfo } from './user-info.ts';

interface TokenReviewBody {
  metadata?: Record<string, unknown>;
  spec?: { token?: string; audiences?: string[] };
}

/** The wire form of a user: empty uid and extra are omitted as the API does. */
function userInfoJson(user: UserInfo): Record<string, unknown> {
  return {
    username: user.username,
    ...(user.uid ? { uid: user.uid } : {}),
    groups: user.groups,
    ...(user.extra ? { extra: user.extra } : {}),
  };
}

/** Answers a TokenReview; an unknown token gives `status.error` and no `authenticated` (false is omitted on the wire). */
export async function handleTokenReview(context: EmulatorContext, body: string): Promise<JsonReply> {
  context.counters.tokenReviews++;
  const review = (parseJson(body) ?? {}) as TokenReviewBody;
  const spec = review.spec ?? {};
  if (!spec.token) throw badRequest('token is required for TokenReview in authentication');
  const check = await context.authenticator.authenticate(spec.token, spec.audiences);
  const status =
    'error' in check
      ? { user: {}, error: check.error }
      : { authenticated: true, user: userInfoJson(check.user), audiences: check.audiences };
  return {
    status: 201,
    body: {
      kind: 'TokenReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { ...review.metadata, creationTimestamp: null },
      spec,
      status,
    },
  };
}

/** Answers a SelfSubjectReview with the caller's own user. */
export function handleSelfSubjectReview(user: UserInfo): JsonReply {
  return {
    status: 201,
    body: {
      kind: 'SelfSubjectReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { creationTimestamp: null },
      status: { userInfo: userInfoJson(user) },
    },
  };
}
