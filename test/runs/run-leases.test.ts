// Issue 12, the workspace controller's protocol at the store: claims with leases, renewals,
// lapses, numbered log chunks, the two messages, cancellation, and the phase machine's one table.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { MAX_RUN_ATTEMPTS, phaseMachineTable } from '../../shared/runs/phase-machine.ts';
import {
  InvalidPhaseTransitionError,
  LeaseNotHeldError,
  LogChunkConflictError,
  LogSequenceGapError,
} from '../../shared/runs/run-errors.ts';
import type { NewRun } from '../../shared/runs/run.ts';
import { useRunStore } from './run-store-fixture.ts';

const { store } = useRunStore();
const CONTROLLER_A = 'system:serviceaccount:platform:controller-a';
const CONTROLLER_B = 'system:serviceaccount:platform:controller-b';
const LEASE_MS = 60_000;
// Long enough to act within on a loaded machine, short enough to wait out.
const SHORT_LEASE_MS = 300;

const newRun = (workspace: string, extra: Partial<NewRun> = {}) =>
  store().createRun({
    project: 'leases',
    workspace,
    type: 'apply',
    principal: 'alice@example.com',
    principalType: 'oidc',
    ...extra,
  });
const claimIn = (workspace: string, controller = CONTROLLER_A, leaseMs = LEASE_MS) =>
  store().leases.claim(controller, leaseMs, { project: 'leases', workspace });
const lapse = () => new Promise((resolve) => setTimeout(resolve, SHORT_LEASE_MS + 100));
const linesOf = async (runId: string) =>
  (await store().readLogLines(runId, 0, 100)).map((line) => `${line.seq}:${line.line}`);

describe('A controller claims the next pending run, oldest first, optionally for a Workspace or Project, and gets a lease with an expiry; its ServiceAccount is recorded', () => {
  it('claims the oldest Pending run with a new lease, records the controller and counts the attempt', async () => {
    const first = await newRun('claim-order');
    const second = await newRun('claim-order');
    const claimed = await claimIn('claim-order');
    expect(claimed!.run).toMatchObject({
      id: first.id,
      phase: 'Running',
      attempts: 1,
      controller: CONTROLLER_A,
      startedAt: expect.any(String),
    });
    expect(claimed!.lease).toMatchObject({ attempt: 1, nextLogSeq: 1, cancelRequested: false });
    expect(Date.parse(claimed!.lease.expiresAt)).toBeGreaterThan(Date.now() + LEASE_MS / 2);
    expect((await claimIn('claim-order', CONTROLLER_B))!.run.id).toBe(second.id);
    expect(await claimIn('claim-order')).toBeUndefined();
    expect((await store().getRun('leases', first.id)).controller).toBe(CONTROLLER_A);
  });

  it('takes only runs of the named Project or Workspace', async () => {
    const elsewhere = await store().createRun({
      project: 'other-project',
      workspace: 'filtered',
      type: 'plan',
      principal: 'admin',
      principalType: 'admin',
    });
    const mine = await newRun('filtered');
    expect(
      (await store().leases.claim(CONTROLLER_A, LEASE_MS, { project: 'leases', workspace: 'filtered' }))!.run.id,
    ).toBe(mine.id);
    expect(
      await store().leases.claim(CONTROLLER_A, LEASE_MS, { project: 'leases', workspace: 'filtered' }),
    ).toBeUndefined();
    expect((await store().leases.claim(CONTROLLER_A, LEASE_MS, { project: 'other-project' }))!.run.id).toBe(
      elsewhere.id,
    );
  });

  it('never gives the same run to two competing controllers', async () => {
    const runs = await Promise.all(Array.from({ length: 10 }, () => newRun('contended')));
    const claims = await Promise.all(
      Array.from({ length: 30 }, (_, i) => claimIn('contended', i % 2 ? CONTROLLER_A : CONTROLLER_B)),
    );
    let claimed = claims.filter((claim) => claim !== undefined).map((claim) => claim!.run.id);
    // SKIP LOCKED may answer "none" to a claim that raced; the next claim takes what is left.
    for (let claim = await claimIn('contended'); claim; claim = await claimIn('contended'))
      claimed = [...claimed, claim.run.id];
    expect(new Set(claimed).size).toBe(claimed.length);
    expect(new Set(claimed)).toEqual(new Set(runs.map((run) => run.id)));
  });
});

describe("Every phase change and log append carries the lease and is refused (409) when it is not the current holder's; the holder renews while working", () => {
  it('renews the lease, and refuses renewals, appends and phase changes with another lease, changing nothing', async () => {
    await newRun('renewals');
    const { run, lease } = (await claimIn('renewals', CONTROLLER_A, 5_000))!;
    const renewed = await store().leases.renew(run.id, lease.id, LEASE_MS);
    expect(Date.parse(renewed.lease.expiresAt)).toBeGreaterThan(Date.parse(lease.expiresAt));
    expect(renewed.lease).toMatchObject({ id: lease.id, attempt: 1, cancelRequested: false });
    const stranger = '0190a0a0-0000-7000-8000-000000000001';
    await expect(store().leases.renew(run.id, stranger, LEASE_MS)).rejects.toBeInstanceOf(LeaseNotHeldError);
    await expect(store().leases.appendChunk(run.id, stranger, 1, ['forged'])).rejects.toMatchObject({
      reason: 'LeaseNotHeld',
    });
    await expect(store().leases.finish(run.id, stranger, 'Succeeded')).rejects.toMatchObject({
      reason: 'LeaseNotHeld',
    });
    await expect(store().leases.renew(run.id, 'not-a-lease', LEASE_MS)).rejects.toMatchObject({
      reason: 'LeaseNotHeld',
    });
    expect(await linesOf(run.id)).toEqual([]);
    expect(await store().getRun('leases', run.id)).toMatchObject({ phase: 'Running', controller: CONTROLLER_A });
  });

  it("ends the run only once: a retry of the holder's final call answers the run again; any other call after it is 409", async () => {
    await newRun('finishing');
    const { run, lease } = (await claimIn('finishing'))!;
    const done = await store().leases.finish(run.id, lease.id, 'Succeeded', 'applied 3 resources');
    expect(done).toMatchObject({
      phase: 'Succeeded',
      statusMessage: 'applied 3 resources',
      finishedAt: expect.any(String),
    });
    expect(await store().leases.finish(run.id, lease.id, 'Succeeded', 'applied 3 resources')).toEqual(done);
    await expect(store().leases.finish(run.id, lease.id, 'Failed')).rejects.toMatchObject({ reason: 'LeaseNotHeld' });
    await expect(store().leases.renew(run.id, lease.id, LEASE_MS)).rejects.toMatchObject({ reason: 'LeaseNotHeld' });
    await expect(store().leases.appendChunk(run.id, lease.id, 1, ['late'])).rejects.toMatchObject({
      reason: 'LeaseNotHeld',
    });
  });
});

describe('A lease that lapses returns the run to the queue with its attempts counted; a run that exceeds the maximum fails with a clear reason', () => {
  it('gives a lapsed run to the next claim; the old holder is refused and the new one continues the log', async () => {
    await newRun('lapse');
    const first = (await claimIn('lapse', CONTROLLER_A, SHORT_LEASE_MS))!;
    await store().leases.appendChunk(first.run.id, first.lease.id, 1, ['attempt 1: step 1']);
    await lapse();
    await expect(store().leases.renew(first.run.id, first.lease.id, LEASE_MS)).rejects.toMatchObject({
      reason: 'LeaseNotHeld',
      message: expect.stringContaining('expired'),
    });
    const second = (await claimIn('lapse', CONTROLLER_B))!;
    expect(second.run).toMatchObject({
      id: first.run.id,
      attempts: 2,
      controller: CONTROLLER_B,
      statusMessage: expect.stringContaining(`lapsed on attempt 1 of ${MAX_RUN_ATTEMPTS}`),
    });
    expect(second.lease).toMatchObject({ attempt: 2, nextLogSeq: 2 });
    await expect(
      store().leases.appendChunk(first.run.id, first.lease.id, 2, ['attempt 1: step 2']),
    ).rejects.toBeInstanceOf(LeaseNotHeldError);
    await expect(store().leases.finish(first.run.id, first.lease.id, 'Failed')).rejects.toBeInstanceOf(
      LeaseNotHeldError,
    );
    await store().leases.appendChunk(second.run.id, second.lease.id, 2, ['attempt 2: step 1']);
    expect((await store().leases.finish(second.run.id, second.lease.id, 'Succeeded')).phase).toBe('Succeeded');
    expect(await linesOf(first.run.id)).toEqual(['1:attempt 1: step 1', '2:attempt 2: step 1']);
  });

  it(`fails the run when the lease lapses on attempt ${MAX_RUN_ATTEMPTS}, saying why`, async () => {
    const run = await newRun('exhausted', { message: 'nightly plan' });
    for (let attempt = 1; attempt <= MAX_RUN_ATTEMPTS; attempt++) {
      expect((await claimIn('exhausted', CONTROLLER_A, SHORT_LEASE_MS))!.lease.attempt).toBe(attempt);
      await lapse();
    }
    expect(await claimIn('exhausted')).toBeUndefined();
    expect(await store().getRun('leases', run.id)).toMatchObject({
      phase: 'Failed',
      attempts: MAX_RUN_ATTEMPTS,
      finishedAt: expect.any(String),
      message: 'nightly plan',
      statusMessage: `failed: the lease of ${CONTROLLER_A} lapsed on attempt ${MAX_RUN_ATTEMPTS} of ${MAX_RUN_ATTEMPTS}; the run is not retried again`,
    });
  });
});

describe('Log appends are numbered: a retried chunk is acknowledged without storing its lines again; a gap is refused', () => {
  it('stores a chunk once however often it is sent, refuses gaps and different lines over stored ones', async () => {
    await newRun('chunks');
    const { run, lease } = (await claimIn('chunks'))!;
    expect(await store().leases.appendChunk(run.id, lease.id, 1, ['a', 'b'])).toEqual({
      firstSeq: 1,
      lastSeq: 2,
      nextSeq: 3,
      duplicate: false,
    });
    expect(await store().leases.appendChunk(run.id, lease.id, 1, ['a', 'b'])).toEqual({
      firstSeq: 1,
      lastSeq: 2,
      nextSeq: 3,
      duplicate: true,
    });
    await expect(store().leases.appendChunk(run.id, lease.id, 5, ['e'])).rejects.toMatchObject({
      reason: 'LogSequenceGap',
      nextSeq: 3,
    });
    await expect(store().leases.appendChunk(run.id, lease.id, 2, ['x'])).rejects.toBeInstanceOf(LogChunkConflictError);
    await expect(store().leases.appendChunk(run.id, lease.id, 2, ['b', 'c'])).rejects.toBeInstanceOf(
      LogChunkConflictError,
    );
    expect(await store().leases.appendChunk(run.id, lease.id, 3, ['c'])).toMatchObject({
      firstSeq: 3,
      lastSeq: 3,
      duplicate: false,
    });
    expect(await linesOf(run.id)).toEqual(['1:a', '2:b', '3:c']);
    await expect(store().leases.appendChunk(run.id, lease.id, 9, ['gap'])).rejects.toBeInstanceOf(LogSequenceGapError);
  });

  it('stores each of many concurrent retries of the same chunk exactly once', async () => {
    await newRun('concurrent-retries');
    const { run, lease } = (await claimIn('concurrent-retries'))!;
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => store().leases.appendChunk(run.id, lease.id, 1, ['only once', 'and this'])),
    );
    expect(outcomes.filter((outcome) => !outcome.duplicate)).toHaveLength(1);
    expect(await linesOf(run.id)).toEqual(['1:only once', '2:and this']);
  });
});

describe("The user's message from the start of the run and the controller's status message are each their own field", () => {
  it("keeps the user's message when the controller reports its own", async () => {
    await newRun('messages', { message: 'first plan' });
    const { run, lease } = (await claimIn('messages'))!;
    expect(await store().leases.finish(run.id, lease.id, 'Succeeded', 'plan ok')).toMatchObject({
      message: 'first plan',
      statusMessage: 'plan ok',
    });
  });
});

describe('A user cancels a run: a pending one is cancelled at once; a running one is marked, seen by the controller at its next renewal, and acknowledged', () => {
  it('cancels a Pending run at once, so no controller ever claims it', async () => {
    const run = await newRun('cancel-pending');
    const cancelled = await store().requestCancel('leases', run.id, 'alice@example.com');
    expect(cancelled).toMatchObject({
      phase: 'Cancelled',
      finishedAt: expect.any(String),
      cancelRequestedBy: 'alice@example.com',
      cancelRequestedAt: expect.any(String),
      startedAt: null,
    });
    expect(await claimIn('cancel-pending')).toBeUndefined();
    expect(await store().requestCancel('leases', run.id, 'bob')).toEqual(cancelled);
  });

  it('marks a Running run; the renewal says so; the holder acknowledges with Cancelled', async () => {
    await newRun('cancel-running');
    const { run, lease } = (await claimIn('cancel-running'))!;
    await expect(store().leases.finish(run.id, lease.id, 'Cancelled')).rejects.toBeInstanceOf(
      InvalidPhaseTransitionError,
    );
    expect(await store().requestCancel('leases', run.id, 'alice@example.com')).toMatchObject({
      phase: 'Running',
      cancelRequestedBy: 'alice@example.com',
      finishedAt: null,
    });
    expect((await store().leases.renew(run.id, lease.id, LEASE_MS)).lease.cancelRequested).toBe(true);
    expect(await store().leases.finish(run.id, lease.id, 'Cancelled', 'stopped at step 2')).toMatchObject({
      phase: 'Cancelled',
      statusMessage: 'stopped at step 2',
    });
  });

  it('cancels a marked run whose lease lapsed instead of queueing it again', async () => {
    await newRun('cancel-lapsed');
    const { run } = (await claimIn('cancel-lapsed', CONTROLLER_A, SHORT_LEASE_MS))!;
    await store().requestCancel('leases', run.id, 'alice@example.com');
    await lapse();
    expect(await claimIn('cancel-lapsed')).toBeUndefined();
    expect(await store().getRun('leases', run.id)).toMatchObject({
      phase: 'Cancelled',
      statusMessage: expect.stringContaining('lapsed after cancellation was requested'),
    });
  });

  it('refuses to cancel a finished run (409) and leaves it as it was', async () => {
    await newRun('cancel-finished');
    const { run, lease } = (await claimIn('cancel-finished'))!;
    const done = await store().leases.finish(run.id, lease.id, 'Failed', 'exit 1');
    await expect(store().requestCancel('leases', run.id, 'alice@example.com')).rejects.toMatchObject({
      reason: 'InvalidPhaseTransition',
      from: 'Failed',
      to: 'Cancelled',
    });
    await expect(store().requestCancel('another-project', run.id, 'alice@example.com')).rejects.toMatchObject({
      reason: 'RunNotFound',
    });
    expect(await store().getRun('leases', run.id)).toEqual(done);
  });
});

describe('The phase machine is one table (from, to, who, what is required) that the code and the docs share', () => {
  it('docs/run-history.md carries the table exactly as the code declares it', async () => {
    const docs = await readFile(new URL('../../docs/run-history.md', import.meta.url), 'utf8');
    expect(docs).toContain(phaseMachineTable());
  });
});
