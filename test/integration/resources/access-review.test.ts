// Issue 24, item 5: SelfSubjectAccessReview served under /apis/authorization.k8s.io/v1/ for the platform's
// identities, answered by the authorizer the routes use: the admin by its bypass, a ServiceAccount by its RBAC, an
// OIDC user by its mapped ServiceAccount's. Bodies come as JSON or, as kubectl sends them, as Kubernetes protobuf.
import { describe, expect, it } from 'vitest';
import { accessReviewHandlers } from '../../../functions/resources/handlers/access-review-handlers.ts';
import { RoutedPathReview } from '../../../functions/resources/handlers/routed-path-review.ts';
import type { Authorizer } from '../../../shared/authz/authorizer.ts';
import { routeTable } from '../../../shared/contract/routes/route-table.ts';
import type { RbacRulesReader } from '../../../shared/authz/rbac-rules.ts';
import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import {
  CALLER_ACCOUNT_USER,
  GROUP,
  OTHER_PROJECT,
  TEAM_PROJECT,
  callAs,
  usePlatform,
} from '../../support/platform-fixture.ts';

const platform = usePlatform();
const REVIEWS = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';

const asked = (resourceAttributes: Record<string, string>) => ({
  apiVersion: 'authorization.k8s.io/v1',
  kind: 'SelfSubjectAccessReview',
  spec: { resourceAttributes },
});

async function review(who: 'admin' | 'serviceAccount' | 'oidcUser', body: unknown) {
  const response = await callAs(platform, who)('POST', REVIEWS, body);
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** A protobuf field: its key, then a length and the bytes (wire type 2), written independently of the server's reader. */
function field(number: number, content: Uint8Array | string): Uint8Array {
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  return Uint8Array.from([(number << 3) | 2, bytes.length, ...bytes]);
}
const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((part) => [...part]));
/** The envelope kubectl writes: "k8s\0", then runtime.Unknown { typeMeta, raw }. */
function enveloped(object: Uint8Array): Uint8Array {
  const typeMeta = concat(field(1, 'authorization.k8s.io/v1'), field(2, 'SelfSubjectAccessReview'));
  return concat(Uint8Array.from([0x6b, 0x38, 0x73, 0x00]), field(1, typeMeta), field(2, object));
}
function protobufReview(attributes: Uint8Array): Uint8Array {
  return enveloped(concat(field(1, new Uint8Array()), field(2, field(1, attributes)), field(3, new Uint8Array())));
}

async function sendProtobuf(bytes: Uint8Array) {
  const response = await fetch(`${platform().gateway.url}${REVIEWS}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${platform().tokens.serviceAccount}`,
      'content-type': 'application/vnd.kubernetes.protobuf',
      accept: 'application/vnd.kubernetes.protobuf,application/json',
    },
    body: Buffer.from(bytes),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe('SelfSubjectAccessReview: the answer of the authorizer the routes use (issue 24, item 5)', () => {
  it('the admin is allowed anything, and told it is the bypass', async () => {
    const answer = await review('admin', asked({ verb: 'delete', group: GROUP, resource: 'projects' }));
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      spec: { resourceAttributes: { verb: 'delete', group: GROUP, resource: 'projects' } },
      status: { allowed: true, reason: 'the admin account bypasses authorization' },
    });
  });

  it("a ServiceAccount gets its Role: get Workspaces in team-a yes, create no, team-b no; each matches the route's answer", async () => {
    const cases: Array<[Record<string, string>, boolean, string, string]> = [
      [
        { verb: 'list', namespace: TEAM_PROJECT },
        true,
        'GET',
        `/apis/${GROUP}/v1alpha1/namespaces/${TEAM_PROJECT}/workspaces`,
      ],
      [
        { verb: 'list', namespace: OTHER_PROJECT },
        false,
        'GET',
        `/apis/${GROUP}/v1alpha1/namespaces/${OTHER_PROJECT}/workspaces`,
      ],
      [
        { verb: 'delete', namespace: TEAM_PROJECT, name: 'web' },
        false,
        'DELETE',
        `/apis/${GROUP}/v1alpha1/namespaces/${TEAM_PROJECT}/workspaces/web`,
      ],
    ];
    for (const [attributes, allowed, method, path] of cases) {
      const answer = await review('serviceAccount', asked({ group: GROUP, resource: 'workspaces', ...attributes }));
      expect(answer.status).toBe(201);
      expect(answer.body.status.allowed, JSON.stringify(attributes)).toBe(allowed);
      if (!allowed) expect(answer.body.status.reason).toContain(CALLER_ACCOUNT_USER);
      const real = await callAs(platform, 'serviceAccount')(method, path);
      expect(real.status === 403, `${method} ${path}: ${real.status}`).toBe(!allowed);
    }
  });

  it('a subresource, and a non-resource URL, are asked as such', async () => {
    const runs = await review(
      'serviceAccount',
      asked({ verb: 'create', group: GROUP, resource: 'workspaces', subresource: 'runs', namespace: TEAM_PROJECT }),
    );
    expect(runs.body.status.allowed).toBe(true);
    const internal = await review('serviceAccount', {
      spec: { nonResourceAttributes: { path: '/internal/runs', verb: 'get' } },
    });
    expect(internal.status).toBe(201);
    expect(internal.body.status.allowed).toBe(false);
  });

  it('an OIDC user is answered as its mapped ServiceAccount', async () => {
    const answer = await review(
      'oidcUser',
      asked({ verb: 'create', group: GROUP, resource: 'workspaces', namespace: TEAM_PROJECT }),
    );
    expect(answer.body.status).toMatchObject({ allowed: true, reason: expect.stringContaining('ServiceAccount') });
  });

  it('refuses, as a Status naming the field, what it would otherwise have to ignore or guess', async () => {
    const cases: Array<[unknown, string]> = [
      [{ spec: {} }, 'spec'],
      [
        {
          spec: {
            resourceAttributes: { verb: 'get', resource: 'workspaces' },
            nonResourceAttributes: { path: '/x', verb: 'get' },
          },
        },
        'spec',
      ],
      [asked({ verb: 'get', resource: 'workspaces', fieldSelector: 'x' } as never), 'fieldSelector'],
      [{ kind: 'SubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'x' } } }, 'kind'],
      // The message names the one value the field may hold.
      [
        { apiVersion: 'v2', spec: { resourceAttributes: { verb: 'get', resource: 'x' } } },
        'body field "apiVersion" must be "authorization.k8s.io/v1"',
      ],
      [{ spec: { nonResourceAttributes: { path: 'relative', verb: 'get' } } }, 'path'],
    ];
    for (const [body, field] of cases) {
      const answer = await review('admin', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body).toMatchObject({
        kind: 'Status',
        reason: 'BadRequest',
        message: expect.stringContaining(field),
      });
    }
  });
});

describe('SelfSubjectAccessReview in Kubernetes protobuf, as kubectl sends it (issue 24, item 5)', () => {
  const attributes = (namespace: string) =>
    concat(field(1, namespace), field(2, 'list'), field(3, GROUP), field(4, ''), field(5, 'workspaces'));

  it('is read into the same review, and answered in JSON (kubectl accepts it)', async () => {
    const allowed = await sendProtobuf(protobufReview(attributes(TEAM_PROJECT)));
    expect(allowed.status).toBe(201);
    expect(allowed.body).toMatchObject({
      spec: { resourceAttributes: { namespace: TEAM_PROJECT, verb: 'list', resource: 'workspaces' } },
      status: { allowed: true },
    });
    expect((await sendProtobuf(protobufReview(attributes(OTHER_PROJECT)))).body.status.allowed).toBe(false);
  });

  it('a field the server does not honour (a field selector) is refused by name, not ignored', async () => {
    const withSelector = concat(attributes(TEAM_PROJECT), field(8, field(1, 'metadata.name=x')));
    const answer = await sendProtobuf(protobufReview(withSelector));
    expect([answer.status, answer.body.message]).toEqual([400, expect.stringContaining('fieldSelector')]);
  });

  it('issue 38 item 10: an embedded message sent twice is merged with the first, as protobuf reads it', async () => {
    // resourceAttributes in two pieces (verb and resource, then the namespace): one review of all three.
    const pieces = enveloped(
      concat(
        field(2, field(1, concat(field(2, 'list'), field(3, GROUP), field(5, 'workspaces')))),
        field(2, field(1, field(1, TEAM_PROJECT))),
      ),
    );
    const merged = await sendProtobuf(pieces);
    expect([merged.status, merged.body.status?.allowed]).toEqual([201, true]);
    expect(merged.body.spec.resourceAttributes).toEqual({
      namespace: TEAM_PROJECT,
      verb: 'list',
      group: GROUP,
      resource: 'workspaces',
    });
    // A scalar sent twice: the last wins (the other Project, where the account has no Role).
    const lastNamespace = enveloped(field(2, field(1, concat(attributes(TEAM_PROJECT), field(1, OTHER_PROJECT)))));
    expect((await sendProtobuf(lastNamespace)).body.status.allowed).toBe(false);
    // The spec sent twice, once with each kind of attributes: both are read, and a review has exactly one.
    const both = enveloped(
      concat(
        field(2, field(1, attributes(TEAM_PROJECT))),
        field(2, field(2, concat(field(1, '/internal/runs'), field(2, 'get')))),
      ),
    );
    const refused = await sendProtobuf(both);
    expect([refused.status, refused.body.kind]).toEqual([400, 'Status']);
  });

  it('bytes that are not a Kubernetes protobuf object: 400, never 500', async () => {
    const good = protobufReview(attributes(TEAM_PROJECT));
    const hostile: Array<[string, Uint8Array]> = [
      ['no prefix', good.subarray(4)],
      ['cut short', good.subarray(0, good.length - 3)],
      [
        'a number that never ends',
        concat(good.subarray(0, 4), Uint8Array.from([0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])),
      ],
      ['not UTF-8', protobufReview(concat(field(2, Uint8Array.from([0xc3, 0x28])), field(5, 'workspaces')))],
      ['a 64-bit field', concat(good, Uint8Array.from([0x09, 1, 2, 3, 4, 5, 6, 7, 8]))],
      ['no object', concat(good.subarray(0, 4), field(1, field(2, 'SelfSubjectAccessReview')))],
      ['gzip', concat(good, field(3, 'gzip'))],
    ];
    for (const [what, bytes] of hostile) {
      const answer = await sendProtobuf(bytes);
      expect([what, answer.status, answer.body.kind]).toEqual([what, 400, 'Status']);
    }
  });
});

describe('SelfSubjectRulesReview: the rules the caller is authorized by in a namespace (issue 24, item 5)', () => {
  async function rules(who: 'admin' | 'serviceAccount' | 'oidcUser', namespace: string) {
    const response = await callAs(platform, who)('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace },
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { status: Record<string, any> }).status;
  }
  const grants = (status: Record<string, any>, verb: string, resource: string) =>
    (status.resourceRules as Array<{ verbs: string[]; apiGroups: string[]; resources: string[] }>).some(
      (rule) =>
        (rule.verbs.includes(verb) || rule.verbs.includes('*')) &&
        (rule.apiGroups.includes(GROUP) || rule.apiGroups.includes('*')) &&
        (rule.resources.includes(resource) || rule.resources.includes('*')),
    );

  it('the admin: every permission, complete', async () => {
    const status = await rules('admin', TEAM_PROJECT);
    expect(status).toMatchObject({ incomplete: false });
    expect(grants(status, 'delete', 'projects')).toBe(true);
    expect(status.nonResourceRules).toEqual([{ verbs: ['*'], nonResourceURLs: ['*'] }]);
  });

  it("a ServiceAccount: its Role's rules in team-a, none of them in team-b; each agrees with a SelfSubjectAccessReview", async () => {
    const inTeam = await rules('serviceAccount', TEAM_PROJECT);
    expect(grants(inTeam, 'list', 'workspaces')).toBe(true);
    expect(grants(inTeam, 'create', 'workspaces/runs')).toBe(true);
    expect(grants(inTeam, 'delete', 'workspaces')).toBe(false);
    expect(grants(await rules('serviceAccount', OTHER_PROJECT), 'list', 'workspaces')).toBe(false);
    for (const [verb, namespace] of [
      ['list', TEAM_PROJECT],
      ['delete', TEAM_PROJECT],
      ['list', OTHER_PROJECT],
    ] as const) {
      const listed = grants(await rules('serviceAccount', namespace), verb, 'workspaces');
      const answer = await review('serviceAccount', asked({ group: GROUP, resource: 'workspaces', verb, namespace }));
      expect(answer.body.status.allowed, `${verb} in ${namespace}`).toBe(listed);
    }
  });

  it("an OIDC user: its mapped ServiceAccount's rules (the developer Role: everything on Workspaces in team-a)", async () => {
    const status = await rules('oidcUser', TEAM_PROJECT);
    expect(grants(status, 'delete', 'workspaces')).toBe(true);
    expect(grants(status, 'delete', 'projects')).toBe(false);
  });

  it('a namespace is required, and the body is refused as a Status naming what is wrong', async () => {
    const response = await callAs(platform, 'admin')('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
      spec: {},
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ kind: 'Status', message: expect.stringContaining('namespace') });
  });
});

describe('An access review that cannot be answered now is a 503 Status, never an answer (issue 24, item 5)', () => {
  const unavailable = () => apiError('KubernetesUnavailable', 'the Kubernetes API cannot be reached');
  const authorizer: Authorizer = {
    authorize: () => Promise.reject(unavailable()),
    reviewedAs: () => ({ everything: false, users: [{ user: 'system:serviceaccount:a:b', groups: [] }] }),
  };
  const handlers = accessReviewHandlers(
    { authorizer },
    { rulesFor: () => Promise.reject(unavailable()) } as unknown as RbacRulesReader,
    new RoutedPathReview(routeTable(GROUP), authorizer, GROUP, {}),
  );
  const requestWith = (body: unknown) =>
    ({ principal: { type: 'serviceaccount' }, input: { body: () => body } }) as never;

  it('a SelfSubjectAccessReview whose SubjectAccessReview fails', async () => {
    const answer = handlers.createSelfSubjectAccessReview(
      requestWith({ spec: { resourceAttributes: { verb: 'get', resource: 'workspaces' } } }),
    );
    await expect(answer).rejects.toMatchObject({ status: 503, reason: 'KubernetesUnavailable' });
  });

  it('a SelfSubjectAccessReview of a routed path whose SubjectAccessReview fails (issue 38 item 3)', async () => {
    const answer = handlers.createSelfSubjectAccessReview(
      requestWith({ spec: { nonResourceAttributes: { verb: 'get', path: '/api/v1alpha1/audit/events' } } }),
    );
    await expect(answer).rejects.toMatchObject({ status: 503, reason: 'KubernetesUnavailable' });
  });

  it('a SelfSubjectRulesReview whose bindings cannot be read', async () => {
    const answer = handlers.createSelfSubjectRulesReview(requestWith({ spec: { namespace: TEAM_PROJECT } }));
    await expect(answer).rejects.toMatchObject({ status: 503 });
  });
});

describe('Kubernetes protobuf: what the declaration does not name is kept as bytes (issue 24, item 5)', () => {
  it("metadata's own fields (a creation time, binary) are read past; an unknown attribute (binary) is refused by name", async () => {
    // ObjectMeta field 8, creationTimestamp: a Timestamp message whose bytes are not UTF-8 text.
    const metadata = field(8, Uint8Array.from([0x08, 0xff, 0xff, 0xff, 0xff, 0x07]));
    const attributes = concat(field(2, 'list'), field(3, GROUP), field(5, 'workspaces'), field(1, TEAM_PROJECT));
    const review = enveloped(concat(field(1, metadata), field(2, field(1, attributes))));
    const answer = await sendProtobuf(review);
    expect([answer.status, answer.body.status?.allowed]).toEqual([201, true]);
    const withUnknown = concat(attributes, field(12, Uint8Array.from([0xff])));
    const refused = await sendProtobuf(enveloped(field(2, field(1, withUnknown))));
    expect([refused.status, refused.body.message]).toEqual([400, expect.stringContaining('field12')]);
  });
});
