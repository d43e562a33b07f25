// The authorization rules in their exact words and edges (spec: authorization by principal type,
// claim annotations, the review cache's key): what a refusal says, which annotation texts are
// refused and why, and which reviews may share a cache entry.
import { describe, expect, it, vi, afterEach } from 'vitest';
import type { OidcPrincipal, ServiceAccountPrincipal } from '../../../shared/auth/principal.ts';
import { describeAttributes, type AuthorizationAttributes } from '../../../shared/authz/authorizer.ts';
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
import { capturingLogger, silentLogger } from '../../support/function-servers.ts';

const NAMES = claimAnnotationNames('platform.dev');
const GET_LOG: AuthorizationAttributes = {
  verb: 'get',
  group: 'platform.dev',
  resource: 'workspaces',
  subresource: 'log',
  namespace: 'team',
  name: 'web',
};
const ALICE: OidcPrincipal = {
  type: 'oidc',
  name: 'oidc:alice@example.com',
  groups: ['oidc:dev'],
  claims: { email: 'alice@example.com', groups: ['dev'] },
};

afterEach(() => {
  vi.useRealTimers();
});

function countingReviewer(
  answer: (subject: ReviewSubject) => boolean | Error = () => false,
): SubjectAccessReviewer & { calls: number } {
  return {
    calls: 0,
    async review(subject) {
      this.calls++;
      const result = answer(subject);
      if (result instanceof Error) throw result;
      return result;
    },
  };
}

async function refusal(promise: Promise<unknown>): Promise<[number, string, string]> {
  const error = await promise.then(
    () => new Error('expected a refusal'),
    (failure: unknown) => failure,
  );
  if (!(error instanceof ApiError)) throw error;
  return [error.status, error.reason, error.message];
}

function syncedIndex(accounts: Array<[string, Record<string, string>]>): ServiceAccountClaimIndex {
  const index = new ServiceAccountClaimIndex(NAMES, silentLogger);
  for (const [name, annotations] of accounts) index.upsert({ metadata: { namespace: 'team', name, annotations } });
  index.markSynced();
  return index;
}

describe('A refusal names who may not do what: verb, resource/subresource.group, name and namespace', () => {
  it.each([
    [GET_LOG, 'get workspaces/log.platform.dev "web" in namespace "team"'],
    [{ verb: 'list', group: 'platform.dev', resource: 'projects' }, 'list projects.platform.dev'],
    [{ verb: 'get', group: '', resource: 'namespaces', name: 'team' }, 'get namespaces "team"'],
    [
      { verb: 'create', group: 'platform.dev', resource: 'workspaces', namespace: 'team' },
      'create workspaces.platform.dev in namespace "team"',
    ],
    [{ nonResourcePath: '/internal/runs', verb: 'post' }, 'post /internal/runs'],
  ] as const)('%j → %s', (attributes, words) => {
    expect(describeAttributes(attributes)).toBe(words);
  });

  it('a denied ServiceAccount: 403 Forbidden "<user> may not <request>"', async () => {
    const authorizer = new PrincipalAuthorizer(countingReviewer(), undefined);
    const principal: ServiceAccountPrincipal = {
      type: 'serviceaccount',
      name: 'system:serviceaccount:ops:ci',
      uid: 'u',
      groups: [],
      extra: {},
    };
    expect(await refusal(authorizer.authorize(principal, GET_LOG))).toEqual([
      403,
      'Forbidden',
      'system:serviceaccount:ops:ci may not get workspaces/log.platform.dev "web" in namespace "team"',
    ]);
  });

  it('an OIDC user mapped to nothing: 403 naming the user, without any review', async () => {
    const reviewer = countingReviewer();
    const authorizer = new PrincipalAuthorizer(reviewer, syncedIndex([]));
    expect(await refusal(authorizer.authorize(ALICE, GET_LOG))).toEqual([
      403,
      'Forbidden',
      'user "oidc:alice@example.com" maps to no ServiceAccount, so may not get workspaces/log.platform.dev "web" in namespace "team"',
    ]);
    expect(reviewer.calls).toBe(0);
  });

  it('an OIDC user whose ServiceAccounts are all denied: 403 naming them', async () => {
    const authorizer = new PrincipalAuthorizer(
      countingReviewer(),
      syncedIndex([
        ['b', { 'platform.dev/claim.groups': 'dev' }],
        ['a', { 'platform.dev/claim.groups': 'dev' }],
      ]),
    );
    expect(await refusal(authorizer.authorize(ALICE, GET_LOG))).toEqual([
      403,
      'Forbidden',
      'user "oidc:alice@example.com" (as ServiceAccount team/a, team/b) may not get workspaces/log.platform.dev "web" in namespace "team"',
    ]);
  });

  it.each([
    ['OIDC is off (no claim index)', undefined],
    ['the ServiceAccounts are not loaded yet', new ServiceAccountClaimIndex(NAMES, silentLogger)],
  ])('an OIDC user while %s: 503 KubernetesUnavailable, never 403 or 500', async (_case, index) => {
    expect(await refusal(new PrincipalAuthorizer(countingReviewer(), index).authorize(ALICE, GET_LOG))).toEqual([
      503,
      'KubernetesUnavailable',
      'the ServiceAccount claim mappings have not been loaded from the Kubernetes API yet; retry shortly',
    ]);
  });

  it('a reviewer that fails with anything but an ApiError stops at once: no later ServiceAccount is asked', async () => {
    const reviewer = countingReviewer((subject) => (subject.user.endsWith(':a') ? new TypeError('bug') : true));
    const authorizer = new PrincipalAuthorizer(
      reviewer,
      syncedIndex([
        ['a', { 'platform.dev/claim.groups': 'dev' }],
        ['b', { 'platform.dev/claim.groups': 'dev' }],
      ]),
    );
    await expect(authorizer.authorize(ALICE, GET_LOG)).rejects.toThrow(TypeError);
    expect(reviewer.calls).toBe(1);
  });
});

describe('Claim annotations: exactly what each form contributes, and each unreadable text refused with its reason', () => {
  const rules = (annotations: Record<string, string>) => claimRulesFromAnnotations(annotations, NAMES);

  it('reads both forms into one rule set, trimming list values and dropping empty ones', () => {
    const { rules: parsed, problems } = rules({
      'platform.dev/claims': '{"groups": ["eng", "sre"], "org": "acme"}',
      'platform.dev/claim.groups': ' ops, ,eng,',
      'platform.dev/claim.email': '',
    });
    expect(problems).toEqual([]);
    expect(parsed).toEqual(
      new Map([
        ['groups', new Set(['eng', 'sre', 'ops'])],
        ['org', new Set(['acme'])],
      ]),
    );
    expect(claimsMatch(parsed, { groups: [''] })).toBe(false);
    expect(claimsMatch(parsed, { email: '' })).toBe(false);
  });

  it.each([
    ['not JSON', '{groups: eng}', 'platform.dev/claims: is not JSON'],
    ['null', 'null', 'platform.dev/claims: must be a JSON object of claim name to allowed values'],
    ['a string', '"eng"', 'platform.dev/claims: must be a JSON object of claim name to allowed values'],
    ['a list', '["eng"]', 'platform.dev/claims: must be a JSON object of claim name to allowed values'],
    [
      'a list with a non-string',
      '{"groups": ["eng", 1]}',
      'platform.dev/claims: claim "groups" must map to a string or a list of strings',
    ],
    ['a number value', '{"level": 3}', 'platform.dev/claims: claim "level" must map to a string or a list of strings'],
  ])('refuses a claims annotation that is %s, with its reason, and takes nothing from it', (_case, text, problem) => {
    expect(rules({ 'platform.dev/claims': text })).toEqual({ rules: new Map(), problems: [problem] });
  });

  it('logs each refused annotation with the ServiceAccount it came from', () => {
    const logger = capturingLogger();
    const index = new ServiceAccountClaimIndex(NAMES, logger);
    index.upsert({ metadata: { namespace: 'team', name: 'broken', annotations: { 'platform.dev/claims': 'null' } } });
    const logged = logger.lines.map((line) => JSON.parse(line));
    expect(logged).toEqual([
      expect.objectContaining({
        level: 'warn',
        message: 'ignoring a claim annotation',
        serviceAccount: 'team/broken',
        problem: 'platform.dev/claims: must be a JSON object of claim name to allowed values',
      }),
    ]);
  });
});

describe('The review cache key: reviews differing in anything the cluster judges never share an entry; the same review always does', () => {
  const subject: ReviewSubject = { user: 'u', uid: 'id', groups: ['g'] };

  it.each([
    ['subresource', { ...GET_LOG, subresource: 'status' }],
    ['namespace', { ...GET_LOG, namespace: 'other' }],
    ['name', { ...GET_LOG, name: 'other' }],
    ['verb', { ...GET_LOG, verb: 'list' }],
  ])('another %s is reviewed again', async (_field, other) => {
    const inner = countingReviewer(() => true);
    const cache = new SubjectAccessReviewCache(inner);
    await cache.review(subject, GET_LOG);
    await cache.review(subject, other);
    expect(inner.calls).toBe(2);
  });

  it('extra in any key order is one review', async () => {
    const inner = countingReviewer(() => true);
    const cache = new SubjectAccessReviewCache(inner);
    const orders = [
      ['c', 'a', 'd', 'b'],
      ['b', 'd', 'a', 'c'],
      ['d', 'c', 'b', 'a'],
      ['a', 'b', 'c', 'd'],
    ];
    for (const order of orders)
      await cache.review({ ...subject, extra: Object.fromEntries(order.map((key) => [key, [key]])) }, GET_LOG);
    expect(inner.calls).toBe(1);
  });

  it('an expired entry is replaced as the newest, so a full cache drops older entries before it', async () => {
    vi.useFakeTimers({ now: 0 });
    const inner = countingReviewer(() => true);
    const cache = new SubjectAccessReviewCache(inner, { allowedTtlMs: 1_000, maxEntries: 2 });
    const as = (user: string): ReviewSubject => ({ user, groups: [] });
    await cache.review(as('a'), GET_LOG);
    vi.setSystemTime(500);
    await cache.review(as('b'), GET_LOG);
    vi.setSystemTime(1_000);
    await cache.review(as('a'), GET_LOG);
    await cache.review(as('c'), GET_LOG);
    expect(inner.calls).toBe(4);
    await cache.review(as('a'), GET_LOG);
    expect(inner.calls).toBe(4);
  });
});
