// Issue 38, item 6: an audit-trail `continue` token naming a date that does not exist (2026-02-30)
// reached PostgreSQL and answered 500, and any token a client made up was read as a position. Page
// tokens (the runs' and the audit trail's) are now bound to what issued them, as the docs say
// ("only as issued"): a MAC over the position and the query's filters, keyed from the signing key
// every replica shares, and the position's fields are checked in full before any query.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppContext, type AppContext } from '../../../shared/server/app/app-context.ts';
import { loadSettings } from '../../../shared/base/config/settings.ts';
import { isCanonicalTimestamp, PageTokens } from '../../../shared/base/database/page-tokens.ts';
import { adminEnv, OTHER_SIGNING_KEY } from '../../support/admin-fixtures.ts';
import { silentLogger } from '../../support/function-servers.ts';
import { API, expectStatus, send, TEAM_PROJECT, usePlatform, workspaceObject } from '../../support/platform-fixture.ts';

const platform = usePlatform();
const WORKSPACE = 'paging-tokens';
const RUNS = `/api/v1alpha1/projects/${TEAM_PROJECT}/runs`;
const WORKSPACE_RUNS = `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/${WORKSPACE}/runs`;
const EVENTS = '/api/v1alpha1/audit/events';

const admin = (path: string) => send(platform().gateway.url, platform().tokens.admin, 'GET', path);
const refusal = async (path: string) => {
  const answer = await admin(path);
  return { status: answer.status, reason: ((await answer.json()) as { reason?: string }).reason };
};
const oldFormat = (fields: Record<string, unknown>) =>
  Buffer.from(JSON.stringify({ v: 1, ...fields })).toString('base64url');

/** The `continue` of the first page of `path` (one item a page). */
async function firstToken(path: string): Promise<string> {
  const page = await admin(`${path}${path.includes('?') ? '&' : '?'}limit=1`).then(expectStatus(200));
  const token = page.continue ?? page.metadata?.continue;
  if (typeof token !== 'string') throw new Error(`no continue token from ${path}: ${JSON.stringify(page)}`);
  return token;
}

beforeAll(async () => {
  const { url } = platform().gateway;
  const { admin: token } = platform().tokens;
  await send(url, token, 'POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject(WORKSPACE)).then(
    expectStatus(201),
  );
  for (let run = 0; run < 3; run++)
    await send(url, token, 'POST', WORKSPACE_RUNS, { type: 'plan' }).then(expectStatus(201));
  // The audit events reach the database in batches: wait until the admin's span two pages.
  const deadline = Date.now() + 20_000;
  for (;;) {
    const page = await admin(`${EVENTS}?user=admin&limit=1`).then(expectStatus(200));
    if (page.metadata.continue) break;
    if (Date.now() > deadline) throw new Error('the audit events were not stored');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});

describe('A token naming a date that does not exist is a 400, never a 500', () => {
  it('the audit trail: 2026-02-30 in a token is 400 InvalidContinueToken', async () => {
    const token = oldFormat({ t: '2026-02-30T00:00:00.000000Z', s: '1' });
    expect(await refusal(`${EVENTS}?continue=${token}`)).toEqual({ status: 400, reason: 'InvalidContinueToken' });
  });

  it('the runs: 2026-02-30 in a token is 400 InvalidContinueToken', async () => {
    const token = oldFormat({ c: '2026-02-30T00:00:00.000Z', i: '0190f4c8-0000-7000-8000-000000000000' });
    expect(await refusal(`${RUNS}?continue=${token}`)).toEqual({ status: 400, reason: 'InvalidContinueToken' });
  });
});

describe('A token is read only for the query it was issued for', () => {
  it("the audit trail: a token of one user's events is refused for another's, and for no filter", async () => {
    const token = await firstToken(`${EVENTS}?user=admin`);
    expect((await admin(`${EVENTS}?user=admin&limit=2&continue=${token}`)).status).toBe(200);
    for (const other of [`${EVENTS}?user=someone-else&continue=${token}`, `${EVENTS}?continue=${token}`])
      expect(await refusal(other), other).toEqual({ status: 400, reason: 'InvalidContinueToken' });
  });

  it("the runs: a Workspace's token is refused for the Project's list, and the other way round", async () => {
    const workspaceToken = await firstToken(WORKSPACE_RUNS);
    const projectToken = await firstToken(RUNS);
    expect((await admin(`${WORKSPACE_RUNS}?limit=1&continue=${workspaceToken}`)).status).toBe(200);
    expect(await refusal(`${RUNS}?continue=${workspaceToken}`)).toEqual({
      status: 400,
      reason: 'InvalidContinueToken',
    });
    expect(await refusal(`${WORKSPACE_RUNS}?continue=${projectToken}`)).toEqual({
      status: 400,
      reason: 'InvalidContinueToken',
    });
  });

  it('a token altered by one character, or forged in its form, is refused', async () => {
    const token = await firstToken(RUNS);
    const [payload, mac] = token.split('.');
    const flipped = `${payload}.${mac!.startsWith('A') ? 'B' : 'A'}${mac!.slice(1)}`;
    const position = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as string[];
    const forged = `${Buffer.from(JSON.stringify(['2099-01-01T00:00:00.000Z', position[1]])).toString('base64url')}.${mac}`;
    for (const bad of [flipped, forged, `${payload}`, `${token}.x`])
      expect(await refusal(`${RUNS}?continue=${bad}`), bad).toEqual({ status: 400, reason: 'InvalidContinueToken' });
  });
});

describe('Any replica reads the tokens of any other (one signing key); a rotated key ends them', () => {
  let replica: AppContext;
  let rotated: AppContext;
  beforeAll(async () => {
    const env = { DATABASE_URL: platform().database.connectionString };
    const options = { cluster: 'on-first-use' as const, logger: silentLogger, auditSinks: [] };
    replica = await createAppContext(loadSettings(adminEnv(env)), options);
    rotated = await createAppContext(
      loadSettings(adminEnv({ ...env, ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: OTHER_SIGNING_KEY })),
      options,
    );
  });
  afterAll(async () => {
    await replica?.close();
    await rotated?.close();
  });

  it("a token of the gateway's pages on another context with the same key, and not on one with another", async () => {
    const token = await firstToken(`${EVENTS}?user=admin`);
    const page = await (await replica.auditStore()).list({ user: 'admin', limit: 1, continue: token });
    expect(page.items).toHaveLength(1);
    await expect((await rotated.auditStore()).list({ user: 'admin', limit: 1, continue: token })).rejects.toMatchObject(
      { status: 400, reason: 'InvalidContinueToken' },
    );
    const runsToken = await firstToken(RUNS);
    expect(
      (await (await replica.runs.service('records')).listRuns({ project: TEAM_PROJECT, limit: 1, continue: runsToken }))
        .items,
    ).toHaveLength(1);
    await expect(
      (await rotated.runs.service('records')).listRuns({ project: TEAM_PROJECT, limit: 1, continue: runsToken }),
    ).rejects.toMatchObject({ reason: 'InvalidContinueToken' });
  });
});

describe('The position in a signed token is checked in full (a token outlives the code that issued it)', () => {
  const tokens = new PageTokens(() => Buffer.alloc(32, 7));
  const fields = [isCanonicalTimestamp, (seq: string) => /^\d+$/.test(seq)];

  it('a date that does not exist, though signed, is refused before any query', () => {
    for (const date of ['2026-02-30T00:00:00.000000Z', '2026-13-01T00:00:00.000Z', '2026-01-01T24:00:00.000Z']) {
      const token = tokens.issue(['q'], [date, '1']);
      expect(() => tokens.read(['q'], token, fields), date).toThrow(/not one this API handed out/);
    }
  });

  it('a real instant in milliseconds or microseconds is read back as it was issued', () => {
    for (const date of ['2026-02-28T23:59:59.999Z', '2024-02-29T00:00:00.000001Z']) {
      expect(tokens.read(['q'], tokens.issue(['q'], [date, '42']), fields)).toEqual([date, '42']);
    }
    expect(isCanonicalTimestamp('0000-01-01T00:00:00.000Z')).toBe(false);
    expect(isCanonicalTimestamp('2026-02-28T00:00:00Z')).toBe(false);
  });
});
