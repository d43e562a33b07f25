// Issue 46, item 4: a revocation takes effect at once on the instance that learns of it. Here the race
// the cache must not lose: a TokenReview sent before the revocation (the ServiceAccount still there)
// answers "authenticated" after the instance already dropped the token; that answer must neither be
// cached (it would be trusted for the TokenReview cache's lifetime again) nor let its request through.
// The verifier is scripted so the test decides when it answers: the race is reached by order, not by time.
import { describe, expect, it, vi } from 'vitest';
import type { Authentication, TokenAuthenticator } from '../../../shared/auth/authenticator.ts';
import type { Principal } from '../../../shared/auth/principal.ts';
import { RequestAuthenticator } from '../../../shared/auth/request-authenticator.ts';
import { ApiError } from '../../../shared/base/http/api-error.ts';
import { withProjectTokens } from '../../../shared/domain/tokens/project-token-principals.ts';
import { projectTokenOf, tokenUserName } from '../../../shared/domain/tokens/token-credentials.ts';
import { unsignedToken } from '../../support/admin-fixtures.ts';

const REVOKED_USER = tokenUserName('team', 'deploy');
const OTHER_USER = tokenUserName('team', 'nightly');
const REVOKED_TOKEN = unsignedToken({ iss: 'scripted', sub: REVOKED_USER });
const OTHER_TOKEN = unsignedToken({ iss: 'scripted', sub: OTHER_USER });

function serviceAccount(name: string): Principal {
  return { type: 'serviceaccount', name, uid: `uid-${name}`, groups: ['system:serviceaccounts'], extra: {} };
}

/** A TokenReview that answers "authenticated" for the token's subject only when the test releases it. */
function heldTokenReview(): TokenAuthenticator & { asked: string[]; release(): void } {
  const asked: string[] = [];
  let release: () => void = () => {};
  let held = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    asked,
    release() {
      release();
      held = Promise.resolve();
    },
    async authenticate(token, claims): Promise<Authentication> {
      asked.push(token);
      await held;
      return { principal: serviceAccount(String(claims.sub)), cacheUntil: Date.now() + 10_000 };
    },
  };
}

async function outcome(promise: Promise<Principal>): Promise<Principal | ApiError> {
  return promise.catch((error: unknown) => {
    if (error instanceof ApiError) return error;
    throw error;
  });
}

describe('Issue 46, item 4: a TokenReview in flight during a revocation does not re-cache the revoked token', () => {
  it('the answer that started before the revocation this instance learnt of is refused (401) and not cached', async () => {
    const review = heldTokenReview();
    const authenticator = new RequestAuthenticator([review]);
    const inFlight = outcome(authenticator.authenticate(REVOKED_TOKEN));
    await vi.waitFor(() => expect(review.asked).toEqual([REVOKED_TOKEN]));

    authenticator.forgetUser(REVOKED_USER);
    review.release();

    const answer = await inFlight;
    expect(answer).toBeInstanceOf(ApiError);
    expect((answer as ApiError).status).toBe(401);
    expect(authenticator.cachedPrincipal(REVOKED_TOKEN)).toBeUndefined();
  });

  it('a verification that starts after the revocation asks again and is judged on its own answer (a token re-created under the name works)', async () => {
    const review = heldTokenReview();
    const authenticator = new RequestAuthenticator([review]);
    const before = outcome(authenticator.authenticate(REVOKED_TOKEN));
    await vi.waitFor(() => expect(review.asked).toHaveLength(1));
    authenticator.forgetUser(REVOKED_USER);
    review.release();
    await before;

    const after = await authenticator.authenticate(REVOKED_TOKEN);
    expect(review.asked).toHaveLength(2);
    expect(after.name).toBe(REVOKED_USER);
    expect(authenticator.cachedPrincipal(REVOKED_TOKEN)?.name).toBe(REVOKED_USER);
  });

  it("another token's verification in flight during the revocation is cached as usual", async () => {
    const review = heldTokenReview();
    const authenticator = new RequestAuthenticator([review]);
    const other = authenticator.authenticate(OTHER_TOKEN);
    await vi.waitFor(() => expect(review.asked).toEqual([OTHER_TOKEN]));
    authenticator.forgetUser(REVOKED_USER);
    review.release();

    expect((await other).name).toBe(OTHER_USER);
    expect(authenticator.cachedPrincipal(OTHER_TOKEN)?.name).toBe(OTHER_USER);
  });
});

describe('Issue 46, item 4: when revocations may have gone unheard, every Project token verified is dropped', () => {
  it('forgets the cached Project tokens and keeps the other ServiceAccount tokens', async () => {
    const review = heldTokenReview();
    review.release();
    const authenticator = new RequestAuthenticator([review]);
    const plain = unsignedToken({ iss: 'scripted', sub: 'system:serviceaccount:team:builder' });
    for (const token of [REVOKED_TOKEN, OTHER_TOKEN, plain]) await authenticator.authenticate(token);
    authenticator.forgetUsers((user) => projectTokenOf(user) !== undefined);
    expect(authenticator.cachedPrincipal(REVOKED_TOKEN)).toBeUndefined();
    expect(authenticator.cachedPrincipal(OTHER_TOKEN)).toBeUndefined();
    expect(authenticator.cachedPrincipal(plain)?.name).toBe('system:serviceaccount:team:builder');
  });
});

describe('Issue 46, item 4: an instance listens for revocations before it sends a Project token to TokenReview', () => {
  it('waits for the listener first when the token names a Project token, and never for any other token', async () => {
    const order: string[] = [];
    const review: TokenAuthenticator = {
      async authenticate(_token, claims) {
        order.push(`review ${String(claims.sub)}`);
        return { principal: serviceAccount(String(claims.sub)), cacheUntil: Date.now() + 10_000 };
      },
    };
    const authenticator = new RequestAuthenticator([
      withProjectTokens(review, 'platform.dev', async () => {
        order.push('listening');
      }),
    ]);
    const plain = 'system:serviceaccount:team:builder';
    await authenticator.authenticate(unsignedToken({ iss: 'scripted', sub: plain }));
    expect(order).toEqual([`review ${plain}`]);
    order.length = 0;

    const principal = await authenticator.authenticate(REVOKED_TOKEN);
    expect(order[0]).toBe('listening');
    expect(order).toContain(`review ${REVOKED_USER}`);
    expect(principal.type === 'serviceaccount' && principal.extra['platform.dev/project-token']).toEqual(['deploy']);
  });
});
