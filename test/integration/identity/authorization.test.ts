// The authorizer and its pieces, each alone: admin bypass, SubjectAccessReview per principal type,
// the review cache and the claim annotations.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { OidcPrincipal, Principal } from '../../../shared/auth/principal.ts';
import type { AuthorizationAttributes } from '../../../shared/authz/authorizer.ts';
import { PrincipalAuthorizer } from '../../../shared/authz/principal-authorizer.ts';
import { ServiceAccountClaimIndex } from '../../../shared/authz/service-account-claim-index.ts';
import {
  claimAnnotationNames,
  claimRulesFromAnnotations,
  claimsMatch,
} from '../../../shared/authz/service-account-claims.ts';
import { SubjectAccessReviewCache } from '../../../shared/authz/subject-access-review-cache.ts';
import type { ReviewSubject, SubjectAccessReviewer } from '../../../shared/authz/subject-access-reviewer.ts';
import { ApiError } from '../../../shared/base/http/api-error.ts';
import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import { silentLogger } from '../../support/function-servers.ts';

const NAMES = claimAnnotationNames('platform.dev');
const GET_INTERNAL: AuthorizationAttributes = { nonResourcePath: '/internal/x', verb: 'get' };
const LIST_PROJECTS: AuthorizationAttributes = { verb: 'list', group: 'platform.dev', resource: 'projects' };

/** A reviewer answering from a table of user → allowed (or a thrown error), recording each call. */
function scriptedReviewer(
  answers: Record<string, boolean | ApiError>,
): SubjectAccessReviewer & { calls: ReviewSubject[] } {
  const calls: ReviewSubject[] = [];
  return {
    calls,
    async review(subject) {
      calls.push(subject);
      const answer = answers[subject.user] ?? false;
      if (answer instanceof ApiError) throw answer;
      return answer;
    },
  };
}

function oidcUser(claims: Record<string, unknown>): OidcPrincipal {
  return { type: 'oidc', name: `oidc:${String(claims.email)}`, groups: [], claims };
}

function indexOf(accounts: Array<{ name: string; annotations: Record<string, string> }>): ServiceAccountClaimIndex {
  const index = new ServiceAccountClaimIndex(NAMES, silentLogger);
  for (const { name, annotations } of accounts) index.upsert({ metadata: { namespace: 'team', name, annotations } });
  index.markSynced();
  return index;
}

async function statusOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (error) {
    return (error as ApiError).status;
  }
}

describe('Admin: bypasses every authorization check; no SubjectAccessReview is performed', () => {
  it('allows anything without asking', async () => {
    const reviewer = scriptedReviewer({});
    await new PrincipalAuthorizer(reviewer, undefined).authorize(
      { type: 'admin', name: 'admin' },
      { verb: 'delete', group: 'platform.dev', resource: 'projects', name: 'x' },
    );
    expect(reviewer.calls).toEqual([]);
  });
});

describe('ServiceAccount: standard RBAC through SubjectAccessReview as the reviewed user', () => {
  const principal: Principal = {
    type: 'serviceaccount',
    name: 'system:serviceaccount:ops:ci',
    uid: 'u-1',
    groups: ['system:serviceaccounts', 'system:authenticated'],
    extra: { 'authentication.kubernetes.io/credential-id': ['JTI=1'] },
  };

  it('reviews with the user, uid, groups and extra TokenReview returned', async () => {
    const reviewer = scriptedReviewer({ 'system:serviceaccount:ops:ci': true });
    await new PrincipalAuthorizer(reviewer, undefined).authorize(principal, LIST_PROJECTS);
    expect(reviewer.calls).toEqual([
      { user: principal.name, uid: 'u-1', groups: principal.groups, extra: principal.extra },
    ]);
  });

  it('a denial is 403 Forbidden naming who and what', async () => {
    const error = await new PrincipalAuthorizer(scriptedReviewer({}), undefined)
      .authorize(principal, { ...LIST_PROJECTS, namespace: 'team-a' })
      .catch((caught: ApiError) => caught);
    expect(error).toMatchObject({
      status: 403,
      reason: 'Forbidden',
      message: 'system:serviceaccount:ops:ci may not list projects.platform.dev in namespace "team-a"',
    });
  });
});

describe('OIDC user: a SubjectAccessReview per mapped ServiceAccount, as that ServiceAccount with its groups; first allow wins', () => {
  const index = indexOf([
    { name: 'a-readers', annotations: { 'platform.dev/claim.groups': 'eng' } },
    { name: 'b-writers', annotations: { 'platform.dev/claims': '{"groups":["eng"]}' } },
  ]);
  const user = oidcUser({ email: 'u@example.com', groups: ['eng'] });

  it('reviews each mapped ServiceAccount in order and stops at the first allow', async () => {
    const reviewer = scriptedReviewer({ 'system:serviceaccount:team:a-readers': true });
    await new PrincipalAuthorizer(reviewer, index).authorize(user, GET_INTERNAL);
    expect(reviewer.calls).toEqual([
      {
        user: 'system:serviceaccount:team:a-readers',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'],
      },
    ]);
  });

  it('a later ServiceAccount may allow what an earlier one does not', async () => {
    const reviewer = scriptedReviewer({ 'system:serviceaccount:team:b-writers': true });
    expect(await statusOf(new PrincipalAuthorizer(reviewer, index).authorize(user, GET_INTERNAL))).toBe(200);
    expect(reviewer.calls).toHaveLength(2);
  });

  it('no allow: 403 naming the user and the ServiceAccounts', async () => {
    const error = await new PrincipalAuthorizer(scriptedReviewer({}), index)
      .authorize(user, GET_INTERNAL)
      .catch((caught: ApiError) => caught);
    expect(error).toMatchObject({
      status: 403,
      reason: 'Forbidden',
      message: 'user "oidc:u@example.com" (as ServiceAccount team/a-readers, team/b-writers) may not get /internal/x',
    });
  });

  it('an unanswered review with no allow is 503, never 403; with an allow elsewhere, the allow stands', async () => {
    const down = apiError('KubernetesUnavailable', 'down');
    expect(
      await statusOf(
        new PrincipalAuthorizer(scriptedReviewer({ 'system:serviceaccount:team:a-readers': down }), index).authorize(
          user,
          GET_INTERNAL,
        ),
      ),
    ).toBe(503);
    expect(
      await statusOf(
        new PrincipalAuthorizer(
          scriptedReviewer({
            'system:serviceaccount:team:a-readers': down,
            'system:serviceaccount:team:b-writers': true,
          }),
          index,
        ).authorize(user, GET_INTERNAL),
      ),
    ).toBe(200);
  });

  it('a user mapped to nothing is 403 without any review', async () => {
    const reviewer = scriptedReviewer({});
    expect(
      await statusOf(
        new PrincipalAuthorizer(reviewer, index).authorize(
          oidcUser({ email: 'x@example.com', groups: ['sales'] }),
          GET_INTERNAL,
        ),
      ),
    ).toBe(403);
    expect(reviewer.calls).toEqual([]);
  });

  it('before the ServiceAccounts are loaded, the answer is 503', async () => {
    const unsynced = new ServiceAccountClaimIndex(NAMES, silentLogger);
    expect(await statusOf(new PrincipalAuthorizer(scriptedReviewer({}), unsynced).authorize(user, GET_INTERNAL))).toBe(
      503,
    );
  });

  it('follows the watched ServiceAccounts: an annotation removed unmaps at once', async () => {
    const live = indexOf([{ name: 'temp', annotations: { 'platform.dev/claim.email': 'u@example.com' } }]);
    const reviewer = scriptedReviewer({ 'system:serviceaccount:team:temp': true });
    expect(await statusOf(new PrincipalAuthorizer(reviewer, live).authorize(user, GET_INTERNAL))).toBe(200);
    live.upsert({ metadata: { namespace: 'team', name: 'temp', annotations: {} } });
    expect(await statusOf(new PrincipalAuthorizer(reviewer, live).authorize(user, GET_INTERNAL))).toBe(403);
  });
});

describe('SubjectAccessReviewCache: allowed 5 minutes, denied 30 seconds, keyed by the whole review', () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const subject: ReviewSubject = {
    user: 'system:serviceaccount:ops:ci',
    uid: 'u-1',
    groups: ['g'],
    extra: { k: ['v'] },
  };

  it('keeps an allow for 5 minutes', async () => {
    vi.useFakeTimers({ now: 0 });
    const inner = scriptedReviewer({ [subject.user]: true });
    const cache = new SubjectAccessReviewCache(inner);
    await cache.review(subject, GET_INTERNAL);
    vi.setSystemTime(5 * 60_000 - 1);
    await cache.review(subject, GET_INTERNAL);
    expect(inner.calls).toHaveLength(1);
    vi.setSystemTime(5 * 60_000 + 1);
    await cache.review(subject, GET_INTERNAL);
    expect(inner.calls).toHaveLength(2);
  });

  it('keeps a denial for 30 seconds', async () => {
    vi.useFakeTimers({ now: 0 });
    const inner = scriptedReviewer({});
    const cache = new SubjectAccessReviewCache(inner);
    expect(await cache.review(subject, GET_INTERNAL)).toBe(false);
    vi.setSystemTime(29_999);
    await cache.review(subject, GET_INTERNAL);
    expect(inner.calls).toHaveLength(1);
    vi.setSystemTime(30_001);
    await cache.review(subject, GET_INTERNAL);
    expect(inner.calls).toHaveLength(2);
  });

  it.each([
    ['another user', { ...subject, user: 'system:serviceaccount:ops:other' }],
    ['another uid', { ...subject, uid: 'u-2' }],
    ['other groups', { ...subject, groups: ['g', 'system:masters'] }],
    ['other extra', { ...subject, extra: { k: ['w'] } }],
    [
      'a user whose name contains the separator of a naive key',
      { ...subject, user: 'system:serviceaccount:ops:ci","u-1' },
    ],
  ])("never answers %s from this principal's entry", async (_name, other) => {
    const inner = scriptedReviewer({ [subject.user]: true });
    const cache = new SubjectAccessReviewCache(inner);
    await cache.review(subject, GET_INTERNAL);
    await cache.review(other, GET_INTERNAL);
    expect(inner.calls).toEqual([subject, other]);
  });

  it('never answers other attributes from an entry', async () => {
    const inner = scriptedReviewer({ [subject.user]: true });
    const cache = new SubjectAccessReviewCache(inner);
    await cache.review(subject, GET_INTERNAL);
    await cache.review(subject, { nonResourcePath: '/internal/x', verb: 'delete' });
    await cache.review(subject, LIST_PROJECTS);
    await cache.review(subject, { ...LIST_PROJECTS, namespace: 'a' });
    expect(inner.calls).toHaveLength(4);
  });

  it('coalesces concurrent identical reviews into one', async () => {
    const inner = scriptedReviewer({ [subject.user]: true });
    const cache = new SubjectAccessReviewCache(inner);
    await Promise.all(Array.from({ length: 100 }, () => cache.review(subject, GET_INTERNAL)));
    expect(inner.calls).toHaveLength(1);
  });

  // docs/observability.md, platform_api_review_cache_lookups_total{cache="subject_access_review"}: a hit costs the cluster nothing.
  it('tells each lookup as a hit (answered from an entry or an in-flight review) or a miss (sent to the cluster)', async () => {
    vi.useFakeTimers({ now: 0 });
    const lookups: boolean[] = [];
    const inner = scriptedReviewer({ [subject.user]: true });
    const cache = new SubjectAccessReviewCache(inner, { onLookup: (hit) => lookups.push(hit) });
    await Promise.all([cache.review(subject, GET_INTERNAL), cache.review(subject, GET_INTERNAL)]);
    await cache.review(subject, GET_INTERNAL);
    vi.setSystemTime(5 * 60_000 + 1);
    await cache.review(subject, GET_INTERNAL);
    expect({ lookups, reviews: inner.calls.length }).toEqual({ lookups: [false, true, true, false], reviews: 2 });
  });

  it('does not cache a failure', async () => {
    const inner = scriptedReviewer({ [subject.user]: apiError('KubernetesUnavailable', 'down') });
    const cache = new SubjectAccessReviewCache(inner);
    await expect(cache.review(subject, GET_INTERNAL)).rejects.toMatchObject({ status: 503 });
    await expect(cache.review(subject, GET_INTERNAL)).rejects.toMatchObject({ status: 503 });
    expect(inner.calls).toHaveLength(2);
  });
});

describe('Claim annotations: <api_group>/claims (JSON object) and <api_group>/claim.<name> (comma list)', () => {
  const rules = (annotations: Record<string, string>) => claimRulesFromAnnotations(annotations, NAMES);

  it('a listed value equal to a string claim matches; matching is exact', () => {
    const { rules: parsed } = rules({ 'platform.dev/claim.email': 'a@x.io, b@x.io' });
    expect(claimsMatch(parsed, { email: 'b@x.io' })).toBe(true);
    expect(claimsMatch(parsed, { email: 'B@x.io' })).toBe(false);
    expect(claimsMatch(parsed, { email: 'a@x.io.evil' })).toBe(false);
  });

  it('a listed value equal to an element of a list-of-strings claim matches', () => {
    const { rules: parsed } = rules({ 'platform.dev/claims': '{"groups": ["platform-eng", "sre"]}' });
    expect(claimsMatch(parsed, { groups: ['dev', 'sre'] })).toBe(true);
    expect(claimsMatch(parsed, { groups: ['dev'] })).toBe(false);
  });

  it('claims of other types never match', () => {
    const { rules: parsed } = rules({ 'platform.dev/claims': '{"admin": ["true"], "level": "3", "groups": ["a"]}' });
    expect(claimsMatch(parsed, { admin: true, level: 3, groups: [['a']] })).toBe(false);
  });

  it('both forms add up; any listed value of any claim admits the user', () => {
    const { rules: parsed } = rules({
      'platform.dev/claims': '{"groups": "eng"}',
      'platform.dev/claim.email': 'boss@x.io',
    });
    expect(claimsMatch(parsed, { groups: ['eng'], email: 'someone@x.io' })).toBe(true);
    expect(claimsMatch(parsed, { groups: [], email: 'boss@x.io' })).toBe(true);
  });

  it('annotations of other API groups are ignored', () => {
    expect(rules({ 'other.dev/claim.email': 'a@x.io', 'platform.dev/claim.': 'x' }).rules.size).toBe(0);
  });

  it.each([
    ['not JSON', '{groups: eng}'],
    ['not an object', '["eng"]'],
    ['values that are not strings', '{"groups": [1, 2]}'],
  ])('reports an unreadable claims annotation (%s) and takes nothing from it', (_name, text) => {
    const result = rules({ 'platform.dev/claims': text });
    expect(result.rules.size).toBe(0);
    expect(result.problems).toHaveLength(1);
  });
});

describe('issue 22: the authorizer says why it allowed, for the audit trail', () => {
  const index = indexOf([
    { name: 'a-readers', annotations: { 'platform.dev/claim.groups': 'eng' } },
    { name: 'b-writers', annotations: { 'platform.dev/claims': '{"groups":["eng"]}' } },
  ]);

  it('the admin: the bypass, with no ServiceAccount', async () => {
    const grant = await new PrincipalAuthorizer(scriptedReviewer({}), index).authorize(
      { type: 'admin', name: 'admin' },
      LIST_PROJECTS,
    );
    expect(grant).toEqual({ reason: 'the admin account bypasses authorization' });
  });

  it('a ServiceAccount: allowed by a SubjectAccessReview for itself', async () => {
    const principal: Principal = {
      type: 'serviceaccount',
      name: 'system:serviceaccount:ci:bot',
      uid: 'u',
      groups: [],
      extra: {},
    };
    const grant = await new PrincipalAuthorizer(
      scriptedReviewer({ 'system:serviceaccount:ci:bot': true }),
      index,
    ).authorize(principal, LIST_PROJECTS);
    expect(grant).toEqual({ reason: 'allowed by a SubjectAccessReview for system:serviceaccount:ci:bot' });
  });

  it('an OIDC user: the ServiceAccount whose review allowed, not the first one asked', async () => {
    const grant = await new PrincipalAuthorizer(
      scriptedReviewer({ 'system:serviceaccount:team:b-writers': true }),
      index,
    ).authorize(oidcUser({ email: 'u@example.com', groups: ['eng'] }), GET_INTERNAL);
    expect(grant.asServiceAccount).toEqual({ namespace: 'team', name: 'b-writers' });
    expect(grant.reason).toContain('team/b-writers');
    expect(grant.reason).toContain('u@example.com');
  });
});
