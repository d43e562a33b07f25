// Every cache on the security path, on its deny path and past its expiry (issue 15): the token
// cache (a verified token is forgotten at its own cacheUntil), the SubjectAccessReview cache (a
// cached denial stays a denial) and the claim index (a changed ServiceAccount takes effect at once).
// Clocks are faked, so expiry is reached by moving time, never by waiting for it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decodeJwt } from 'jose';
import { AdminTokenAuthenticator, issueAdminToken } from '../../../shared/auth/admin-token.ts';
import type { Authentication, TokenAuthenticator } from '../../../shared/auth/authenticator.ts';
import type { OidcPrincipal, Principal } from '../../../shared/auth/principal.ts';
import { RequestAuthenticator } from '../../../shared/auth/request-authenticator.ts';
import { TokenCache } from '../../../shared/auth/token-cache.ts';
import { FixedAdminSettingsSource } from '../../../shared/base/config/admin-settings-source.ts';
import { parseAdminAccountSettings } from '../../../shared/base/config/admin-account-settings.ts';
import type { AuthorizationAttributes } from '../../../shared/authz/authorizer.ts';
import { PrincipalAuthorizer } from '../../../shared/authz/principal-authorizer.ts';
import { ServiceAccountClaimIndex } from '../../../shared/authz/service-account-claim-index.ts';
import { claimAnnotationNames } from '../../../shared/authz/service-account-claims.ts';
import { SubjectAccessReviewCache } from '../../../shared/authz/subject-access-review-cache.ts';
import type { ReviewSubject, SubjectAccessReviewer } from '../../../shared/authz/subject-access-reviewer.ts';
import { ApiError } from '../../../shared/base/http/api-error.ts';
import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import { SIGNING_KEY, signToken, unsignedToken } from '../../support/admin-fixtures.ts';
import { silentLogger } from '../../support/function-servers.ts';

const ISSUER = 'https://api.example.test';
const START = Date.UTC(2026, 0, 1);
const GET_PROJECTS: AuthorizationAttributes = { verb: 'get', group: 'platform.dev', resource: 'projects', name: 'p' };
/** Tokens the scripted authenticators own (their signatures are theirs to judge). */
const TOKEN = unsignedToken({ iss: 'scripted', n: 1 });
const BAD_TOKEN = unsignedToken({ iss: 'scripted', n: 2 });
const SERVICE_ACCOUNT: Principal = {
  type: 'serviceaccount',
  name: 'system:serviceaccount:ops:ci',
  uid: 'u-1',
  groups: ['system:serviceaccounts'],
  extra: {},
};

afterEach(() => {
  vi.useRealTimers();
});

/** An authenticator that owns every token, answering from a script and counting its calls. */
function scriptedAuthenticator(
  answer: (token: string) => Authentication | Promise<Authentication>,
): TokenAuthenticator & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async authenticate(token) {
      calls.push(token);
      return answer(token);
    },
  };
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => new Error('expected a rejection'),
    (failure: unknown) => failure,
  );
  if (!(error instanceof ApiError)) throw error;
  return error;
}

function adminAuthenticator(ttl = '1h'): AdminTokenAuthenticator {
  const settings = parseAdminAccountSettings({
    ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: SIGNING_KEY,
    ADMIN_ACCOUNT_TOKEN_TTL: ttl,
  });
  return new AdminTokenAuthenticator(new FixedAdminSettingsSource(settings, 'test'), ISSUER);
}

describe('Token cache: a verified token is trusted until its own cacheUntil, never after', () => {
  it('keeps an entry until just before cacheUntil and forgets it at cacheUntil', () => {
    const cache = new TokenCache();
    const authentication = { principal: SERVICE_ACCOUNT, cacheUntil: 1_000 };
    cache.set('t', authentication);
    expect(cache.get('t', 999)).toBe(authentication);
    expect(cache.get('t', 1_000)).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(cache.get('t', 0)).toBeUndefined();
  });

  it('holds at most maxEntries tokens, dropping the oldest first, and clear() empties it', () => {
    const cache = new TokenCache(2);
    for (const token of ['a', 'b', 'c']) cache.set(token, { principal: SERVICE_ACCOUNT, cacheUntil: 10 });
    expect([cache.get('a', 0), cache.get('b', 0)?.principal, cache.get('c', 0)?.principal]).toEqual([
      undefined,
      SERVICE_ACCOUNT,
      SERVICE_ACCOUNT,
    ]);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('an admin token used once is refused once it expires (the cache never outlives exp)', async () => {
    vi.useFakeTimers({ now: START });
    const authenticator = new RequestAuthenticator([adminAuthenticator('1m')]);
    const token = await issueAdminToken(
      parseAdminAccountSettings({ ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: SIGNING_KEY, ADMIN_ACCOUNT_TOKEN_TTL: '1m' }),
      ISSUER,
      START / 1000,
    );
    const admin = { type: 'admin', name: 'admin', expiresAt: START + 60_000 };
    expect(await authenticator.authenticate(token)).toEqual(admin);
    vi.setSystemTime(START + 59_999);
    expect(authenticator.cachedPrincipal(token)).toEqual(admin);
    vi.setSystemTime(START + 60_000);
    expect(authenticator.cachedPrincipal(token)).toBeUndefined();
    const refused = await rejection(authenticator.authenticate(token));
    expect([refused.status, refused.reason, refused.message]).toEqual([401, 'InvalidToken', 'token has expired']);
  });

  it('asks the authenticator again once cacheUntil has passed, and honours its new answer', async () => {
    vi.useFakeTimers({ now: START });
    let valid = true;
    const inner = scriptedAuthenticator(() => {
      if (!valid) throw apiError('InvalidToken', 'revoked');
      return { principal: SERVICE_ACCOUNT, cacheUntil: Date.now() + 10_000 };
    });
    const authenticator = new RequestAuthenticator([inner]);
    await authenticator.authenticate(TOKEN);
    vi.setSystemTime(START + 9_999);
    await authenticator.authenticate(TOKEN);
    expect(inner.calls).toHaveLength(1);
    valid = false;
    vi.setSystemTime(START + 10_000);
    expect((await rejection(authenticator.authenticate(TOKEN))).status).toBe(401);
    expect(inner.calls).toHaveLength(2);
  });

  it('never caches an authentication whose cacheUntil is already past', async () => {
    vi.useFakeTimers({ now: START });
    const inner = scriptedAuthenticator(() => ({ principal: SERVICE_ACCOUNT, cacheUntil: Date.now() }));
    const authenticator = new RequestAuthenticator([inner]);
    await authenticator.authenticate(TOKEN);
    expect(authenticator.cachedPrincipal(TOKEN)).toBeUndefined();
    await authenticator.authenticate(TOKEN);
    expect(inner.calls).toHaveLength(2);
  });
});

describe('Token verification, deny path: a refused token is never cached and is verified again on every use', () => {
  it('refuses the same bad token on each request, asking the authenticator each time', async () => {
    const inner = scriptedAuthenticator(() => {
      throw apiError('InvalidToken', 'bad signature');
    });
    const authenticator = new RequestAuthenticator([inner]);
    for (let attempt = 0; attempt < 3; attempt++)
      expect((await rejection(authenticator.authenticate(BAD_TOKEN))).status).toBe(401);
    expect(inner.calls).toEqual([BAD_TOKEN, BAD_TOKEN, BAD_TOKEN]);
    expect(authenticator.cachedPrincipal(BAD_TOKEN)).toBeUndefined();
  });

  it('a token signed with the right key but expired is refused, and stays refused', async () => {
    vi.useFakeTimers({ now: START });
    const now = START / 1000;
    const expired = await signToken({ iss: ISSUER, sub: 'admin', iat: now - 120, exp: now - 60 });
    const authenticator = new RequestAuthenticator([adminAuthenticator()]);
    for (let attempt = 0; attempt < 2; attempt++) {
      const refused = await rejection(authenticator.authenticate(expired));
      expect([refused.status, refused.message]).toEqual([401, 'token has expired']);
    }
  });

  it('coalesces concurrent verifications of one token into one, and forgets a failed one at once', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let fail = true;
    const inner = scriptedAuthenticator(async () => {
      await gate;
      if (fail) throw apiError('InvalidToken', 'not yet');
      return { principal: SERVICE_ACCOUNT, cacheUntil: Date.now() + 60_000 };
    });
    const authenticator = new RequestAuthenticator([inner]);
    const concurrent = [
      authenticator.authenticate(TOKEN),
      authenticator.authenticate(TOKEN),
      authenticator.authenticate(TOKEN),
    ].map(rejection);
    release();
    expect((await Promise.all(concurrent)).map((error) => error.status)).toEqual([401, 401, 401]);
    expect(inner.calls).toHaveLength(1);
    fail = false;
    expect(await authenticator.authenticate(TOKEN)).toBe(SERVICE_ACCOUNT);
    expect(inner.calls).toHaveLength(2);
  });

  it('tries the authenticators in order: "not mine" passes the token on; no owner is 401 UnknownIssuer', async () => {
    const notMine: TokenAuthenticator & { calls: number } = {
      calls: 0,
      async authenticate() {
        this.calls++;
        return null;
      },
    };
    const owner = scriptedAuthenticator(() => ({ principal: SERVICE_ACCOUNT, cacheUntil: Date.now() + 60_000 }));
    const token = await signToken({ iss: 'https://elsewhere.test' });
    expect(await new RequestAuthenticator([notMine, owner]).authenticate(token)).toBe(SERVICE_ACCOUNT);
    expect(notMine.calls).toBe(1);
    const unowned = await rejection(new RequestAuthenticator([notMine]).authenticate(token));
    expect([unowned.status, unowned.reason, unowned.message]).toEqual([
      401,
      'UnknownIssuer',
      'token issuer "https://elsewhere.test" is not trusted',
    ]);
    // Issue 21: the refusal names the issuer the token carried beside the ones this server owns.
    const withOwner = { ...notMine, ownedIssuer: 'admin tokens: "http://localhost:8081"' };
    const named = await rejection(new RequestAuthenticator([withOwner, notMine]).authenticate(token));
    expect(named.message).toBe(
      'token issuer "https://elsewhere.test" is not trusted; this server accepts admin tokens: "http://localhost:8081"',
    );
    const noIssuer = await rejection(new RequestAuthenticator([notMine]).authenticate(await signToken({})));
    expect(noIssuer.message).toBe('token issuer none is not trusted');
    expect(new RequestAuthenticator([notMine]).cachedPrincipal(token)).toBeUndefined();
  });

  it('a string that is not a JWT is 401 InvalidToken before any authenticator is asked', async () => {
    const inner = scriptedAuthenticator(() => ({ principal: SERVICE_ACCOUNT, cacheUntil: Date.now() + 60_000 }));
    const refused = await rejection(new RequestAuthenticator([inner]).authenticate('not-a-jwt'));
    expect([refused.status, refused.reason, refused.message]).toEqual([401, 'InvalidToken', 'token is not a JWT']);
    expect(inner.calls).toEqual([]);
  });

  it('forgetVerifiedTokens() drops every cached token, so the next use is verified again', async () => {
    const inner = scriptedAuthenticator(() => ({ principal: SERVICE_ACCOUNT, cacheUntil: Date.now() + 60_000 }));
    const authenticator = new RequestAuthenticator([inner]);
    await authenticator.authenticate(TOKEN);
    expect(authenticator.cachedPrincipal(TOKEN)).toBe(SERVICE_ACCOUNT);
    authenticator.forgetVerifiedTokens();
    expect(authenticator.cachedPrincipal(TOKEN)).toBeUndefined();
    await authenticator.authenticate(TOKEN);
    expect(inner.calls).toHaveLength(2);
  });

  it("the admin token's cacheUntil is its exp", async () => {
    const settings = parseAdminAccountSettings({
      ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: SIGNING_KEY,
      ADMIN_ACCOUNT_TOKEN_TTL: '1h',
    });
    const token = await issueAdminToken(settings, ISSUER);
    const authentication = await adminAuthenticator().authenticate(token, decodeJwt(token));
    expect(authentication?.cacheUntil).toBe((decodeJwt(token).exp as number) * 1000);
  });
});

/** A reviewer answering from a mutable table of user → allowed, counting its calls. */
function tableReviewer(allowed: Set<string>): SubjectAccessReviewer & { calls: number } {
  return {
    calls: 0,
    async review(subject: ReviewSubject) {
      this.calls++;
      return allowed.has(subject.user);
    },
  };
}

async function statusOf(promise: Promise<unknown>): Promise<number> {
  return promise.then(
    () => 200,
    (error: ApiError) => error.status,
  );
}

describe('SubjectAccessReview cache, deny path: a cached denial answers "denied" for its 30 seconds, then the cluster is asked again', () => {
  it("answers a repeated denied request within the cache's lifetime as denied (403), from the cache", async () => {
    vi.useFakeTimers({ now: START });
    const inner = tableReviewer(new Set());
    const authorizer = new PrincipalAuthorizer(new SubjectAccessReviewCache(inner), undefined);
    expect(await statusOf(authorizer.authorize(SERVICE_ACCOUNT, GET_PROJECTS))).toBe(403);
    vi.setSystemTime(START + 29_999);
    expect(await statusOf(authorizer.authorize(SERVICE_ACCOUNT, GET_PROJECTS))).toBe(403);
    expect(inner.calls).toBe(1);
  });

  it('past 30 seconds a new RoleBinding takes effect: the cluster is asked again and its allow stands', async () => {
    vi.useFakeTimers({ now: START });
    const allowed = new Set<string>();
    const inner = tableReviewer(allowed);
    const authorizer = new PrincipalAuthorizer(new SubjectAccessReviewCache(inner), undefined);
    expect(await statusOf(authorizer.authorize(SERVICE_ACCOUNT, GET_PROJECTS))).toBe(403);
    allowed.add(SERVICE_ACCOUNT.name);
    vi.setSystemTime(START + 30_000);
    expect(await statusOf(authorizer.authorize(SERVICE_ACCOUNT, GET_PROJECTS))).toBe(200);
    expect(inner.calls).toBe(2);
  });

  it('past 5 minutes a revoked allow takes effect: the cached allow is dropped and the denial stands', async () => {
    vi.useFakeTimers({ now: START });
    const allowed = new Set([SERVICE_ACCOUNT.name]);
    const inner = tableReviewer(allowed);
    const authorizer = new PrincipalAuthorizer(new SubjectAccessReviewCache(inner), undefined);
    expect(await statusOf(authorizer.authorize(SERVICE_ACCOUNT, GET_PROJECTS))).toBe(200);
    allowed.clear();
    vi.setSystemTime(START + 5 * 60_000 - 1);
    expect(await statusOf(authorizer.authorize(SERVICE_ACCOUNT, GET_PROJECTS))).toBe(200);
    vi.setSystemTime(START + 5 * 60_000);
    expect(await statusOf(authorizer.authorize(SERVICE_ACCOUNT, GET_PROJECTS))).toBe(403);
    expect(inner.calls).toBe(2);
  });

  it('honours configured lifetimes and a bound on its entries', async () => {
    vi.useFakeTimers({ now: START });
    const inner = tableReviewer(new Set(['a']));
    const cache = new SubjectAccessReviewCache(inner, { allowedTtlMs: 1_000, deniedTtlMs: 100, maxEntries: 1 });
    const subject = (user: string): ReviewSubject => ({ user, groups: [] });
    expect(await cache.review(subject('a'), GET_PROJECTS)).toBe(true);
    expect(await cache.review(subject('b'), GET_PROJECTS)).toBe(false);
    expect(await cache.review(subject('b'), GET_PROJECTS)).toBe(false);
    expect(inner.calls).toBe(2);
    // One entry only: b's denial pushed a's allow out.
    expect(await cache.review(subject('a'), GET_PROJECTS)).toBe(true);
    expect(inner.calls).toBe(3);
    vi.setSystemTime(START + 999);
    expect(await cache.review(subject('a'), GET_PROJECTS)).toBe(true);
    expect(inner.calls).toBe(3);
    vi.setSystemTime(START + 1_000);
    await cache.review(subject('a'), GET_PROJECTS);
    expect(inner.calls).toBe(4);
  });

  it('keys non-resource reviews by path and verb, and resource reviews by every attribute', async () => {
    const inner = tableReviewer(new Set(['u']));
    const cache = new SubjectAccessReviewCache(inner);
    const subject: ReviewSubject = { user: 'u', groups: [], extra: { b: ['1'], a: ['2'] } };
    const sameExtraOtherOrder: ReviewSubject = { user: 'u', groups: [], extra: { a: ['2'], b: ['1'] } };
    const requests: AuthorizationAttributes[] = [
      { nonResourcePath: '/internal/runs', verb: 'get' },
      { nonResourcePath: '/internal/runs', verb: 'post' },
      { nonResourcePath: '/internal/other', verb: 'get' },
      { verb: 'get', group: 'platform.dev', resource: 'workspaces' },
      { verb: 'get', group: 'platform.dev', resource: 'workspaces', subresource: 'log' },
      { verb: 'get', group: 'platform.dev', resource: 'workspaces', namespace: 'team-a' },
      { verb: 'get', group: 'platform.dev', resource: 'workspaces', namespace: 'team-a', name: 'web' },
      { verb: 'get', group: 'other.dev', resource: 'workspaces' },
    ];
    for (const attributes of requests) await cache.review(subject, attributes);
    expect(inner.calls).toBe(requests.length);
    for (const attributes of requests) await cache.review(sameExtraOtherOrder, attributes);
    expect(inner.calls).toBe(requests.length);
  });

  it('a review that failed (503) is not remembered: the next request asks again', async () => {
    let failing = true;
    const inner: SubjectAccessReviewer & { calls: number } = {
      calls: 0,
      async review() {
        this.calls++;
        if (failing) throw apiError('KubernetesUnavailable', 'down');
        return true;
      },
    };
    const authorizer = new PrincipalAuthorizer(new SubjectAccessReviewCache(inner), undefined);
    expect(await statusOf(authorizer.authorize(SERVICE_ACCOUNT, GET_PROJECTS))).toBe(503);
    failing = false;
    expect(await statusOf(authorizer.authorize(SERVICE_ACCOUNT, GET_PROJECTS))).toBe(200);
    expect(inner.calls).toBe(2);
  });
});

describe('Claim index, deny path and change: a user no ServiceAccount maps is refused, and a changed ServiceAccount takes effect at once', () => {
  const names = claimAnnotationNames('platform.dev');
  const user: OidcPrincipal = {
    type: 'oidc',
    name: 'oidc:alice@example.com',
    groups: ['oidc:dev'],
    claims: { email: 'alice@example.com', groups: ['dev'] },
  };
  const account = (name: string, annotations: Record<string, string>) => ({
    metadata: { namespace: 'team', name, annotations },
  });
  const reviewedAs = (name: string) => `system:serviceaccount:team:${name}`;

  function setUp() {
    const index = new ServiceAccountClaimIndex(names, silentLogger);
    const allowed = new Set([reviewedAs('developer'), reviewedAs('second')]);
    const inner = tableReviewer(allowed);
    const authorizer = new PrincipalAuthorizer(new SubjectAccessReviewCache(inner), index);
    return { index, inner, authorizer };
  }

  it('answers 503 before the index is synced, and 403 for a user it maps to nothing, twice, without a review', async () => {
    const { index, inner, authorizer } = setUp();
    expect(await statusOf(authorizer.authorize(user, GET_PROJECTS))).toBe(503);
    index.markSynced();
    expect(index.synced).toBe(true);
    expect(await statusOf(authorizer.authorize(user, GET_PROJECTS))).toBe(403);
    expect(await statusOf(authorizer.authorize(user, GET_PROJECTS))).toBe(403);
    expect(inner.calls).toBe(0);
  });

  it('maps the user as soon as a ServiceAccount gains a matching annotation, and unmaps as soon as it loses it', async () => {
    const { index, authorizer } = setUp();
    index.markSynced();
    expect(await statusOf(authorizer.authorize(user, GET_PROJECTS))).toBe(403);
    index.upsert(account('developer', { 'platform.dev/claim.groups': 'dev' }));
    expect(index.serviceAccountsFor(user.claims)).toEqual([{ namespace: 'team', name: 'developer' }]);
    expect(await statusOf(authorizer.authorize(user, GET_PROJECTS))).toBe(200);
    index.upsert(account('developer', { unrelated: 'x' }));
    expect(index.serviceAccountsFor(user.claims)).toEqual([]);
    expect(await statusOf(authorizer.authorize(user, GET_PROJECTS))).toBe(403);
  });

  it('a deleted ServiceAccount maps no one from then on; deleting an unknown one changes nothing', () => {
    const { index } = setUp();
    index.upsert(account('developer', { 'platform.dev/claims': '{"groups":["dev"]}' }));
    index.upsert(account('second', { 'platform.dev/claim.email': 'alice@example.com' }));
    expect(index.serviceAccountsFor(user.claims).map((entry) => entry.name)).toEqual(['developer', 'second']);
    const memoised = index.serviceAccountsFor(user.claims);
    index.remove(account('unknown', {}));
    index.remove({ metadata: { namespace: 'team' } });
    expect(index.serviceAccountsFor(user.claims)).toBe(memoised);
    index.remove(account('developer', {}));
    expect(index.serviceAccountsFor(user.claims).map((entry) => entry.name)).toEqual(['second']);
  });

  it('orders the mapped ServiceAccounts by namespace, then name', () => {
    const { index } = setUp();
    for (const [namespace, name] of [
      ['b', 'a'],
      ['a', 'z'],
      ['a', 'b'],
    ])
      index.upsert({ metadata: { namespace, name, annotations: { 'platform.dev/claim.groups': 'dev' } } });
    expect(index.serviceAccountsFor(user.claims)).toEqual([
      { namespace: 'a', name: 'b' },
      { namespace: 'a', name: 'z' },
      { namespace: 'b', name: 'a' },
    ]);
  });

  it('ignores a ServiceAccount without a namespace or name, and one whose only annotation is unreadable (with a warning)', () => {
    const warnings: unknown[] = [];
    const index = new ServiceAccountClaimIndex(names, {
      ...silentLogger,
      warn: (...args: unknown[]) => warnings.push(args),
    } as typeof silentLogger);
    index.upsert({ metadata: { name: 'nameless-namespace', annotations: { 'platform.dev/claim.groups': 'dev' } } });
    index.upsert({ metadata: { namespace: 'team', annotations: { 'platform.dev/claim.groups': 'dev' } } });
    index.upsert({});
    index.upsert(account('broken', { 'platform.dev/claims': 'not json' }));
    expect(index.serviceAccountsFor(user.claims)).toEqual([]);
    expect(warnings).toHaveLength(1);
  });
});
