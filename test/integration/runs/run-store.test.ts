import { beforeAll, describe, expect, it } from 'vitest';
import type { Run } from '../../../shared/domain/runs/run.ts';
import { InvalidRunError, RunNotFoundError } from '../../../shared/domain/runs/run-errors.ts';
import { InvalidContinueTokenError } from '../../../shared/base/database/page-tokens.ts';
import type { NewRun } from '../../../shared/domain/runs/run.ts';
import { useRunStore } from '../../support/run-store-fixture.ts';

const { database, store } = useRunStore();

const adminPlan = (project: string, workspace: string): NewRun => ({
  project,
  workspace,
  type: 'plan',
  principal: 'admin',
  principalType: 'admin',
});

describe('each run records the principal that started it; the admin account is recorded as "admin"', () => {
  it('creates a Pending run with a time-ordered id and reads it back', async () => {
    const run = await store().records.createRun({ ...adminPlan('records', 'w'), message: 'queued' });
    expect(run).toMatchObject({
      project: 'records',
      workspace: 'w',
      type: 'plan',
      phase: 'Pending',
      principal: 'admin',
      principalType: 'admin',
      startedAt: null,
      finishedAt: null,
      message: 'queued',
    });
    expect(run.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Date(run.createdAt).toISOString()).toBe(run.createdAt);
    expect(await store().records.getRun('records', run.id)).toEqual(run);
  });

  it('records OIDC usernames and ServiceAccounts as given', async () => {
    const oidc = await store().records.createRun({
      ...adminPlan('records', 'w'),
      principal: 'alice',
      principalType: 'oidc',
    });
    const serviceAccount = await store().records.createRun({
      ...adminPlan('records', 'w'),
      type: 'apply',
      principal: 'system:serviceaccount:platform:workspace-controller',
      principalType: 'serviceaccount',
    });
    expect((await store().records.getRun('records', oidc.id)).principal).toBe('alice');
    expect(await store().records.getRun('records', serviceAccount.id)).toMatchObject({
      type: 'apply',
      principal: 'system:serviceaccount:platform:workspace-controller',
      principalType: 'serviceaccount',
    });
  });

  it('rejects a principal whose form does not match its type, and writes nothing', async () => {
    const before = await store().records.listRuns({ project: 'records', limit: 100 });
    const invalid: NewRun[] = [
      { ...adminPlan('records', 'w'), principal: 'root' },
      { ...adminPlan('records', 'w'), principal: 'bob', principalType: 'serviceaccount' },
      { ...adminPlan('records', 'w'), principal: 'system:serviceaccount:a:b', principalType: 'oidc' },
      // Issue 38 item 2: an OIDC user cannot be recorded as the admin account either.
      { ...adminPlan('records', 'w'), principal: 'admin', principalType: 'oidc' },
      { ...adminPlan('records', ''), principal: 'admin' },
      { ...adminPlan('records', 'w'), type: 'destroy' as NewRun['type'] },
    ];
    for (const run of invalid) {
      await expect(store().records.createRun(run)).rejects.toBeInstanceOf(InvalidRunError);
    }
    await expect(store().records.createRun(invalid[0]!)).rejects.toMatchObject({ reason: 'InvalidRun' });
    expect(await store().records.listRuns({ project: 'records', limit: 100 })).toEqual(before);
  });

  it('finds a run only in its own project', async () => {
    const run = await store().records.createRun(adminPlan('records', 'w'));
    await expect(store().records.getRun('another-project', run.id)).rejects.toBeInstanceOf(RunNotFoundError);
    await expect(store().records.getRun('records', 'not-a-uuid')).rejects.toMatchObject({ reason: 'RunNotFound' });
  });
});

describe('runs are listed newest first with keyset pagination: no duplicates and no gaps across pages', () => {
  let workspaceA: Run[];
  let workspaceB: Run[];

  beforeAll(async () => {
    workspaceA = [];
    workspaceB = [];
    for (let i = 0; i < 12; i++) {
      workspaceA.push(await store().records.createRun(adminPlan('paging', 'a')));
      workspaceB.push(await store().records.createRun(adminPlan('paging', 'b')));
    }
    await store().records.createRun(adminPlan('paging-other', 'a'));
    // Rows sharing one created_at: only the id tie-breaker keeps pages apart.
    await database().pool.query(
      `INSERT INTO runs (id, project, workspace, type, phase, principal, principal_type, created_at)
       SELECT gen_random_uuid(), 'paging', 'a', 'plan', 'Pending', 'admin', 'admin', '2020-01-01T00:00:00.000Z'
       FROM generate_series(1, 9)`,
    );
  });

  /** Every run of a scope, following continue tokens page by page. */
  async function listAll(scope: { project: string; workspace?: string }, limit: number) {
    const pages: Run[][] = [];
    let token: string | undefined;
    do {
      const page = await store().records.listRuns({ ...scope, limit, ...(token ? { continue: token } : {}) });
      pages.push(page.items);
      token = page.continue;
    } while (token);
    return pages;
  }

  /** The expected order, straight from the table. */
  async function expectedIds(project: string, workspace?: string): Promise<string[]> {
    const { rows } = await database().pool.query(
      `SELECT id FROM runs WHERE project = $1 AND ($2::text IS NULL OR workspace = $2)
       ORDER BY created_at DESC, id DESC`,
      [project, workspace ?? null],
    );
    return rows.map((row) => row.id);
  }

  it('pages through a workspace newest first, covering every run exactly once', async () => {
    const pages = await listAll({ project: 'paging', workspace: 'a' }, 5);
    const ids = pages.flat().map((run) => run.id);
    expect(ids).toEqual(await expectedIds('paging', 'a'));
    expect(new Set(ids).size).toBe(21);
    expect(pages.map((page) => page.length)).toEqual([5, 5, 5, 5, 1]);
    expect(ids.slice(0, 12)).toEqual(workspaceA.map((run) => run.id).reverse());
  });

  it('lists the whole project across workspaces, and nothing from other projects', async () => {
    const ids = (await listAll({ project: 'paging' }, 7)).flat().map((run) => run.id);
    expect(ids).toEqual(await expectedIds('paging'));
    expect(ids).toHaveLength(33);
    expect(ids).toEqual(expect.arrayContaining(workspaceB.map((run) => run.id)));
  });

  it('omits the continue token on the last page, even when it is exactly full', async () => {
    const page = await store().records.listRuns({ project: 'paging', workspace: 'b', limit: 12 });
    expect(page.items).toHaveLength(12);
    expect(page.continue).toBeUndefined();
  });

  it('clamps the page size to 1..500', async () => {
    expect((await store().records.listRuns({ project: 'paging', limit: 0 })).items).toHaveLength(1);
    expect((await store().records.listRuns({ project: 'paging', limit: 10_000 })).items).toHaveLength(33);
  });

  it('rejects a malformed or altered continue token with InvalidContinueToken', async () => {
    const { continue: token } = await store().records.listRuns({ project: 'paging', limit: 2 });
    const [payload, mac] = token!.split('.');
    const position = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as string[];
    const withPosition = (changed: unknown[]) => `${Buffer.from(JSON.stringify(changed)).toString('base64url')}.${mac}`;
    const altered = [
      'not-a-token',
      '',
      Buffer.from('{"v":1}').toString('base64url'),
      withPosition([position[0], "x' OR 1=1"]),
      withPosition(['yesterday', position[1]]),
      withPosition([...position, 'more']),
      `${payload}.${mac!.slice(0, -2)}AA`,
      // Another list's token: this project's, offered for one of its Workspaces (issue 38, item 6).
      (await store().records.listRuns({ project: 'paging', workspace: 'a', limit: 2 })).continue!,
    ];
    for (const bad of altered) {
      await expect(store().records.listRuns({ project: 'paging', limit: 2, continue: bad })).rejects.toBeInstanceOf(
        InvalidContinueTokenError,
      );
    }
    await expect(store().records.listRuns({ project: 'paging', limit: 2, continue: 'x' })).rejects.toMatchObject({
      reason: 'InvalidContinueToken',
    });
  });
});
