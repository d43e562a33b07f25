// Review of issues 46 and 47 as an attacker would send requests: the Project token routes, the
// delivery-log and redeliver routes and the sweep route, with malformed JSON, wrong types, unknown
// fields and options, oversized bodies, names that are no DNS label, dot segments and bad query values.
// Each is a 4xx with a JSON error from the catalogue, never a 5xx, and changes nothing in the cluster
// (ServiceAccounts, RoleBindings) or the database (token rows, deliveries).
import { describe, expect, it } from 'vitest';
import { rawRequest, type RawAnswer } from '../../support/raw-http.ts';
import { TEAM_PROJECT, usePlatform } from '../../support/platform-fixture.ts';

const platform = usePlatform();
const TOKENS = `/api/v1alpha1/projects/${TEAM_PROJECT}/tokens`;
const DELIVERIES = `/api/v1alpha1/projects/${TEAM_PROJECT}/notifications/hooks/deliveries`;
const GOOD_TOKEN = { name: 'hostile', role: { kind: 'Role', name: 'ci' }, lifetime: '1h' };

function hostile(
  method: string,
  path: string,
  body?: string,
  who: 'admin' | 'controller' = 'admin',
): Promise<RawAnswer> {
  return rawRequest(
    platform().gateway.url,
    method,
    path,
    {
      authorization: `Bearer ${platform().tokens[who]}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body,
  );
}

/** ServiceAccounts and RoleBindings of the Project, its token rows and every delivery. */
async function state(): Promise<unknown> {
  const names = async (path: string) =>
    (
      await platform().clusterAdmin.find<{ items: Array<{ metadata: { name: string; resourceVersion: string } }> }>(
        path,
      )
    )?.items
      .map((item) => `${item.metadata.name}@${item.metadata.resourceVersion}`)
      .sort();
  const rows = async (sql: string) => (await platform().database.pool.query(sql)).rows;
  return {
    accounts: await names(`/api/v1/namespaces/${TEAM_PROJECT}/serviceaccounts`),
    bindings: await names(`/apis/rbac.authorization.k8s.io/v1/namespaces/${TEAM_PROJECT}/rolebindings`),
    tokens: await rows('SELECT project, name, revoked_at FROM project_tokens ORDER BY project, name'),
    deliveries: await rows('SELECT id, state FROM outbound_deliveries ORDER BY id'),
  };
}

function expectRefused(answer: RawAnswer, where: string): { reason: string; error: string } {
  expect(answer.status, `${where} → ${answer.text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(answer.status, `${where} → ${answer.text.slice(0, 300)}`).toBeLessThan(500);
  const body = JSON.parse(answer.text) as { reason: string; error: string };
  expect(typeof body.error, where).toBe('string');
  expect(typeof body.reason, where).toBe('string');
  return body;
}

const DOT_AND_BAD_NAMES = ['..', '%2e%2e', '.', 'Bad_Name', '%00', 'a'.repeat(300), '..%2f..%2fserviceaccounts'];

describe('Review of issue 46: hostile requests to the Project token routes are refused with a 4xx and change nothing', () => {
  it('malformed JSON, wrong types, unknown fields and oversized bodies on create', async () => {
    const before = await state();
    const bodies = [
      '{',
      'null',
      '[]',
      '"x"',
      JSON.stringify({ ...GOOD_TOKEN, name: 5 }),
      JSON.stringify({ ...GOOD_TOKEN, lifetime: 3600 }),
      JSON.stringify({ ...GOOD_TOKEN, role: 'ci' }),
      JSON.stringify({ ...GOOD_TOKEN, role: { kind: 'ClusterRoleBinding', name: 'ci' } }),
      JSON.stringify({ ...GOOD_TOKEN, role: { kind: 'Role', name: '../../clusterroles/cluster-admin' } }),
      JSON.stringify({ ...GOOD_TOKEN, role: { kind: 'Role', name: 'ci', namespace: 'kube-system' } }),
      JSON.stringify({ ...GOOD_TOKEN, audiences: ['https://elsewhere'] }),
      JSON.stringify({ ...GOOD_TOKEN, name: '../x' }),
      JSON.stringify({ ...GOOD_TOKEN, name: 'a'.repeat(58) }),
      JSON.stringify({ ...GOOD_TOKEN, lifetime: '-1h' }),
      JSON.stringify({ ...GOOD_TOKEN, lifetime: '9999999999999999h' }),
      JSON.stringify({ ...GOOD_TOKEN, description: 'x'.repeat(2_000_000) }),
    ];
    for (const body of bodies) expectRefused(await hostile('POST', TOKENS, body), `POST ${body.slice(0, 80)}`);
    expect(await state()).toEqual(before);
  });

  it('unknown query options (dryRun among them) are refused, never ignored: a dry run would otherwise mint a token', async () => {
    const before = await state();
    for (const query of ['?dryRun=All', '?fieldManager=x', '?bogus=1'])
      expectRefused(await hostile('POST', `${TOKENS}${query}`, JSON.stringify(GOOD_TOKEN)), `POST ${query}`);
    for (const query of ['?limit=abc', '?limit=-1', '?continue=%25%25', '?bogus=1'])
      expectRefused(await hostile('GET', `${TOKENS}${query}`), `GET ${query}`);
    for (const query of ['?dryRun=All', '?gracePeriodSeconds=0', '?bogus=1'])
      expectRefused(await hostile('DELETE', `${TOKENS}/deploy${query}`), `DELETE ${query}`);
    expect(await state()).toEqual(before);
  });

  it('names that are no DNS label, and dot segments, in the Project or the token path segment', async () => {
    const before = await state();
    for (const name of DOT_AND_BAD_NAMES) {
      expectRefused(await hostile('DELETE', `${TOKENS}/${name}`), `DELETE token ${name}`);
      expectRefused(
        await hostile('POST', `/api/v1alpha1/projects/${name}/tokens`, JSON.stringify(GOOD_TOKEN)),
        `POST project ${name}`,
      );
      expectRefused(await hostile('GET', `/api/v1alpha1/projects/${name}/tokens`), `GET project ${name}`);
    }
    expect(await state()).toEqual(before);
  });
});

describe('Review of issue 47: hostile requests to the delivery log, redeliver and sweep routes are refused with a 4xx and change nothing', () => {
  it('bad limits, unknown options, bad Notification names and delivery ids', async () => {
    const before = await state();
    for (const query of ['?limit=0', '?limit=501', '?limit=abc', '?limit=1.5', '?limit=', '?continue=x', '?bogus=1'])
      expectRefused(await hostile('GET', `${DELIVERIES}${query}`), `GET deliveries ${query}`);
    for (const name of DOT_AND_BAD_NAMES) {
      expectRefused(
        await hostile('GET', `/api/v1alpha1/projects/${TEAM_PROJECT}/notifications/${name}/deliveries`),
        `GET deliveries of ${name}`,
      );
      expectRefused(
        await hostile('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/notifications/${name}/deliveries/1/redeliver`),
        `POST redeliver of ${name}`,
      );
    }
    for (const delivery of ['abc', '-1', '0', '1.5', '1e3', '99999999999999999999', '%2e%2e'])
      expectRefused(await hostile('POST', `${DELIVERIES}/${delivery}/redeliver`), `POST redeliver ${delivery}`);
    for (const body of ['{', '{"delivery":1}'])
      expectRefused(await hostile('POST', `${DELIVERIES}/1/redeliver`, body), `POST redeliver body ${body}`);
    expect(await state()).toEqual(before);
  });

  it('the sweep route refuses unknown options and bodies', async () => {
    for (const query of ['?bogus=1', '?dryRun=All'])
      expectRefused(await hostile('POST', `/internal/outbound/sweep${query}`, undefined, 'controller'), query);
    expectRefused(await hostile('POST', '/internal/outbound/sweep', '{"limit":1}', 'controller'), 'body');
  });

  it('the delivery log of a Notification that does not exist, and never had a delivery, is 404, not an empty log', async () => {
    const answer = await hostile('GET', DELIVERIES);
    expect(answer.status, answer.text).toBe(404);
    expect(expectRefused(answer, 'GET deliveries of a Notification that does not exist').error).toContain(
      `${TEAM_PROJECT}/hooks`,
    );
  });
});
