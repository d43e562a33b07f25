// Issue 12, the workspace controller's protocol at the store: claims with leases, renewals,
// lapses, numbered log chunks, the two messages, cancellation, and the phase machine's one table.
import { readFile } from 'node:fs/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createDatabasePool } from '../../../shared/base/database/database-pool.ts';
import { MAX_RUN_ATTEMPTS, phaseMachineTable } from '../../../shared/domain/runs/phase-machine.ts';
import {
  InvalidPhaseTransitionError,
  LeaseNotHeldError,
  LogChunkConflictError,
  LogSequenceGapError,
} from '../../../shared/domain/runs/run-errors.ts';
import type { NewRun } from '../../../shared/domain/runs/run.ts';
import type { LeaseHolder } from '../../../shared/domain/runs/leases/run-leases.ts';
import { testRuns } from '../../support/test-runs.ts';
import { useRunStore } from '../../support/run-store-fixture.ts';

const { database, store } = useRunStore();
const serviceAccount = (name: string): LeaseHolder => ({
  principal: `system:serviceaccount:platform:${name}`,
  principalType: 'serviceaccount',
});
const CONTROLLER_A = serviceAccount('controller-a');
const CONTROLLER_B = serviceAccount('controller-b');
const LEASE_MS = 60_000;
// Long enough to act within on a loaded machine, short enough to wait out.
const SHORT_LEASE_MS = 300;

const newRun = (workspace: string, extra: Partial<NewRun> = {}) =>
  store().records.createRun({
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
  (await store().logs.readLogLines(runId, 0, 100)).map((line) => `${line.seq}:${line.line}`);

describe('A controller claims the next pending run, oldest first, optionally for a Workspace or Project, and gets a lease with an expiry; its ServiceAccount is recorded', () => {
  it('claims the oldest Pending run with a new lease, records the controller and counts the attempt', async () => {
    const first = await newRun('claim-order');
    const second = await newRun('claim-order');
    const claimed = await claimIn('claim-order');
    expect(claimed!.run).toMatchObject({
      id: first.id,
      phase: 'Running',
      attempts: 1,
      controller: CONTROLLER_A.principal,
      startedAt: expect.any(String),
    });
    expect(claimed!.lease).toMatchObject({ attempt: 1, nextLogSeq: 1, cancelRequested: false });
    expect(Date.parse(claimed!.lease.expiresAt)).toBeGreaterThan(Date.now() + LEASE_MS / 2);
    expect((await claimIn('claim-order', CONTROLLER_B))!.run.id).toBe(second.id);
    expect(await claimIn('claim-order')).toBeUndefined();
    expect((await store().records.getRun('leases', first.id)).controller).toBe(CONTROLLER_A.principal);
  });

  it('takes only runs of the named Project or Workspace', async () => {
    const elsewhere = await store().records.createRun({
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
    const renewed = await store().leases.renew(run.id, lease.id, CONTROLLER_A, LEASE_MS);
    expect(Date.parse(renewed.lease.expiresAt)).toBeGreaterThan(Date.parse(lease.expiresAt));
    expect(renewed.lease).toMatchObject({ id: lease.id, attempt: 1, cancelRequested: false });
    const stranger = '0190a0a0-0000-7000-8000-000000000001';
    await expect(store().leases.renew(run.id, stranger, CONTROLLER_A, LEASE_MS)).rejects.toBeInstanceOf(
      LeaseNotHeldError,
    );
    await expect(store().logChunks.appendChunk(run.id, stranger, CONTROLLER_A, 1, ['forged'])).rejects.toMatchObject({
      reason: 'LeaseNotHeld',
    });
    await expect(store().leases.finish(run.id, stranger, CONTROLLER_A, 'Succeeded')).rejects.toMatchObject({
      reason: 'LeaseNotHeld',
    });
    await expect(store().leases.renew(run.id, 'not-a-lease', CONTROLLER_A, LEASE_MS)).rejects.toMatchObject({
      reason: 'LeaseNotHeld',
    });
    expect(await linesOf(run.id)).toEqual([]);
    expect(await store().records.getRun('leases', run.id)).toMatchObject({
      phase: 'Running',
      controller: CONTROLLER_A.principal,
    });
  });

  it("ends the run only once: a retry of the holder's final call answers the run again; any other call after it is 409", async () => {
    await newRun('finishing');
    const { run, lease } = (await claimIn('finishing'))!;
    const done = await store().leases.finish(run.id, lease.id, CONTROLLER_A, 'Succeeded', 'applied 3 resources');
    expect(done).toMatchObject({
      phase: 'Succeeded',
      statusMessage: 'applied 3 resources',
      finishedAt: expect.any(String),
    });
    expect(await store().leases.finish(run.id, lease.id, CONTROLLER_A, 'Succeeded', 'applied 3 resources')).toEqual(
      done,
    );
    await expect(store().leases.finish(run.id, lease.id, CONTROLLER_A, 'Failed')).rejects.toMatchObject({
      reason: 'LeaseNotHeld',
    });
    await expect(store().leases.renew(run.id, lease.id, CONTROLLER_A, LEASE_MS)).rejects.toMatchObject({
      reason: 'LeaseNotHeld',
    });
    await expect(store().logChunks.appendChunk(run.id, lease.id, CONTROLLER_A, 1, ['late'])).rejects.toMatchObject({
      reason: 'LeaseNotHeld',
    });
  });
});

describe('A lease that lapses returns the run to the queue with its attempts counted; a run that exceeds the maximum fails with a clear reason', () => {
  it('gives a lapsed run to the next claim; the old holder is refused and the new one continues the log', async () => {
    await newRun('lapse');
    const first = (await claimIn('lapse', CONTROLLER_A, SHORT_LEASE_MS))!;
    await store().logChunks.appendChunk(first.run.id, first.lease.id, CONTROLLER_A, 1, ['attempt 1: step 1']);
    await lapse();
    await expect(store().leases.renew(first.run.id, first.lease.id, CONTROLLER_A, LEASE_MS)).rejects.toMatchObject({
      reason: 'LeaseNotHeld',
      message: expect.stringContaining('expired'),
    });
    const second = (await claimIn('lapse', CONTROLLER_B))!;
    expect(second.run).toMatchObject({
      id: first.run.id,
      attempts: 2,
      controller: CONTROLLER_B.principal,
      statusMessage: expect.stringContaining(`lapsed on attempt 1 of ${MAX_RUN_ATTEMPTS}`),
    });
    expect(second.lease).toMatchObject({ attempt: 2, nextLogSeq: 2 });
    await expect(
      store().logChunks.appendChunk(first.run.id, first.lease.id, CONTROLLER_A, 2, ['attempt 1: step 2']),
    ).rejects.toBeInstanceOf(LeaseNotHeldError);
    await expect(store().leases.finish(first.run.id, first.lease.id, CONTROLLER_A, 'Failed')).rejects.toBeInstanceOf(
      LeaseNotHeldError,
    );
    await store().logChunks.appendChunk(second.run.id, second.lease.id, CONTROLLER_B, 2, ['attempt 2: step 1']);
    expect((await store().leases.finish(second.run.id, second.lease.id, CONTROLLER_B, 'Succeeded')).phase).toBe(
      'Succeeded',
    );
    expect(await linesOf(first.run.id)).toEqual(['1:attempt 1: step 1', '2:attempt 2: step 1']);
  });

  it(`fails the run when the lease lapses on attempt ${MAX_RUN_ATTEMPTS}, saying why`, async () => {
    const run = await newRun('exhausted', { message: 'nightly plan' });
    for (let attempt = 1; attempt <= MAX_RUN_ATTEMPTS; attempt++) {
      expect((await claimIn('exhausted', CONTROLLER_A, SHORT_LEASE_MS))!.lease.attempt).toBe(attempt);
      await lapse();
    }
    expect(await claimIn('exhausted')).toBeUndefined();
    expect(await store().records.getRun('leases', run.id)).toMatchObject({
      phase: 'Failed',
      attempts: MAX_RUN_ATTEMPTS,
      finishedAt: expect.any(String),
      message: 'nightly plan',
      statusMessage: `failed: the lease of ${CONTROLLER_A.principal} lapsed on attempt ${MAX_RUN_ATTEMPTS} of ${MAX_RUN_ATTEMPTS}; the run is not retried again`,
    });
  });
});

describe('Log appends are numbered: a retried chunk is acknowledged without storing its lines again; a gap is refused', () => {
  it('stores a chunk once however often it is sent, refuses gaps and different lines over stored ones', async () => {
    await newRun('chunks');
    const { run, lease } = (await claimIn('chunks'))!;
    expect(await store().logChunks.appendChunk(run.id, lease.id, CONTROLLER_A, 1, ['a', 'b'])).toEqual({
      firstSeq: 1,
      lastSeq: 2,
      nextSeq: 3,
      duplicate: false,
      storedBefore: 0,
    });
    expect(await store().logChunks.appendChunk(run.id, lease.id, CONTROLLER_A, 1, ['a', 'b'])).toEqual({
      firstSeq: 1,
      lastSeq: 2,
      nextSeq: 3,
      duplicate: true,
      storedBefore: 2,
    });
    await expect(store().logChunks.appendChunk(run.id, lease.id, CONTROLLER_A, 5, ['e'])).rejects.toMatchObject({
      reason: 'LogSequenceGap',
      nextSeq: 3,
      message: expect.stringContaining('a chunk starting at line 5 leaves a gap; the next line is 3'),
    });
    await expect(store().logChunks.appendChunk(run.id, lease.id, CONTROLLER_A, 2, ['x'])).rejects.toBeInstanceOf(
      LogChunkConflictError,
    );
    expect(await store().logChunks.appendChunk(run.id, lease.id, CONTROLLER_A, 3, ['c'])).toMatchObject({
      firstSeq: 3,
      lastSeq: 3,
      duplicate: false,
    });
    expect(await linesOf(run.id)).toEqual(['1:a', '2:b', '3:c']);
    await expect(store().logChunks.appendChunk(run.id, lease.id, CONTROLLER_A, 9, ['gap'])).rejects.toBeInstanceOf(
      LogSequenceGapError,
    );
  });

  it('issue 20: a chunk over stored lines with the same text that then continues is acknowledged for the stored part and stores the rest', async () => {
    await newRun('partial-overlap');
    const { run, lease } = (await claimIn('partial-overlap'))!;
    await store().logChunks.appendChunk(run.id, lease.id, CONTROLLER_A, 1, ['a', 'b', 'c']);
    expect(await store().logChunks.appendChunk(run.id, lease.id, CONTROLLER_A, 2, ['b', 'c', 'd', 'e'])).toEqual({
      firstSeq: 2,
      lastSeq: 5,
      nextSeq: 6,
      duplicate: false,
      storedBefore: 2,
    });
    expect(await linesOf(run.id)).toEqual(['1:a', '2:b', '3:c', '4:d', '5:e']);
  });

  it('issue 20: a chunk over stored lines with other text is LogChunkConflict naming the first line that differs, and stores nothing', async () => {
    await newRun('overlap-conflict');
    const { run, lease } = (await claimIn('overlap-conflict'))!;
    await store().logChunks.appendChunk(run.id, lease.id, CONTROLLER_A, 1, ['a', 'b', 'c']);
    await expect(
      store().logChunks.appendChunk(run.id, lease.id, CONTROLLER_A, 2, ['b', 'X', 'd']),
    ).rejects.toMatchObject({
      reason: 'LogChunkConflict',
      message: `run ${run.id}: line 3 of the chunk starting at line 2 differs from the stored line 3 (the next line is 4)`,
    });
    await expect(store().logChunks.appendChunk(run.id, lease.id, CONTROLLER_A, 1, ['Z'])).rejects.toMatchObject({
      reason: 'LogChunkConflict',
      message: `run ${run.id}: line 1 of the chunk starting at line 1 differs from the stored line 1 (the next line is 4)`,
    });
    expect(await linesOf(run.id)).toEqual(['1:a', '2:b', '3:c']);
  });

  it('stores each of many concurrent retries of the same chunk exactly once', async () => {
    await newRun('concurrent-retries');
    const { run, lease } = (await claimIn('concurrent-retries'))!;
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () =>
        store().logChunks.appendChunk(run.id, lease.id, CONTROLLER_A, 1, ['only once', 'and this']),
      ),
    );
    expect(outcomes.filter((outcome) => !outcome.duplicate)).toHaveLength(1);
    expect(await linesOf(run.id)).toEqual(['1:only once', '2:and this']);
  });
});

describe('Issue 20: pipelined chunks are decided one after another under the row lock, each on the log the one before left', () => {
  it('two controllers pipelining 100 chunks each (not awaiting one before sending the next) to two replicas in turn: every chunk stored once, in order, no 409', async () => {
    const CHUNKS = 100;
    const LINES_PER_CHUNK = 3;
    // Two server processes on one database: neither sees the other's chunks in flight, so the
    // database decides each chunk against what the other stored.
    const otherReplica = createDatabasePool(database().connectionString, () => undefined);
    const replicas = [store(), testRuns(otherReplica)];
    onTestFinished(() => otherReplica.end());
    const pipeline = async (workspace: string, controller: LeaseHolder) => {
      await newRun(workspace);
      const { run, lease } = (await claimIn(workspace, controller))!;
      const chunks = Array.from({ length: CHUNKS }, (_, chunk) =>
        Array.from({ length: LINES_PER_CHUNK }, (_, line) => `${workspace} chunk ${chunk} line ${line}`),
      );
      // Every chunk is sent before any is answered, as a controller pipelining its appends does.
      const outcomes = await Promise.all(
        chunks.map((lines, chunk) =>
          replicas[chunk % 2]!.logChunks.appendChunk(run.id, lease.id, controller, 1 + chunk * LINES_PER_CHUNK, lines),
        ),
      );
      return { runId: run.id, chunks, outcomes };
    };
    const controllers = await Promise.all([
      pipeline('pipelined-a', CONTROLLER_A),
      pipeline('pipelined-b', CONTROLLER_B),
    ]);
    for (const { runId, chunks, outcomes } of controllers) {
      expect(outcomes.every((outcome) => !outcome.duplicate && outcome.storedBefore === 0)).toBe(true);
      const stored = await store().logs.readLogLines(runId, 0, CHUNKS * LINES_PER_CHUNK + 10);
      expect(stored).toEqual(chunks.flat().map((line, index) => ({ seq: index + 1, line })));
    }
  });

  it('concurrent retries of a chunk that grew past the stored lines store the new lines once: each is decided on the log the one before left', async () => {
    await newRun('growing-retries');
    const { run, lease } = (await claimIn('growing-retries'))!;
    await store().logChunks.appendChunk(run.id, lease.id, CONTROLLER_A, 1, ['a', 'b']);
    // Each overlaps the stored lines, so each is decided in a transaction, not by the plain append.
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, () =>
        store().logChunks.appendChunk(run.id, lease.id, CONTROLLER_A, 1, ['a', 'b', 'c', 'd']),
      ),
    );
    expect(outcomes.filter((outcome) => !outcome.duplicate)).toEqual([
      { firstSeq: 1, lastSeq: 4, nextSeq: 5, duplicate: false, storedBefore: 2 },
    ]);
    expect(await linesOf(run.id)).toEqual(['1:a', '2:b', '3:c', '4:d']);
  });

  it('a chunk that overtook the one before it waits for it and is stored after it', async () => {
    await newRun('overtaken');
    const { run, lease } = (await claimIn('overtaken'))!;
    const second = store().logChunks.appendChunk(run.id, lease.id, CONTROLLER_A, 3, ['c']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await store().logChunks.appendChunk(run.id, lease.id, CONTROLLER_A, 1, ['a', 'b']);
    expect(await second).toMatchObject({ firstSeq: 3, duplicate: false });
    expect(await linesOf(run.id)).toEqual(['1:a', '2:b', '3:c']);
  });
});

describe('Issue 20: a lease is bound to the principal that claimed it; another principal (the admin included) presenting its id gets LeaseNotHeld and learns nothing', () => {
  const ADMIN: LeaseHolder = { principal: 'admin', principalType: 'admin' };
  // An OIDC user whose username is the admin's recorded name: still someone else.
  const OIDC_NAMED_ADMIN: LeaseHolder = { principal: 'admin', principalType: 'oidc' };

  it("refuses the claimer's lease id from every other principal on renew, heldRun, appendChunk and finish, as it refuses an id never issued", async () => {
    await newRun('bound');
    const { run, lease } = (await claimIn('bound', CONTROLLER_A))!;
    const before = await store().records.getRun('leases', run.id);
    const neverIssued = '0190a0a0-0000-7000-8000-000000000002';
    const refusals = async (leaseId: string, holder: LeaseHolder) =>
      Promise.all([
        store()
          .leases.renew(run.id, leaseId, holder, LEASE_MS)
          .catch((error: Error) => error),
        store()
          .leases.heldRun(run.id, leaseId, holder)
          .catch((error: Error) => error),
        store()
          .logChunks.appendChunk(run.id, leaseId, holder, 1, ['forged'])
          .catch((error: Error) => error),
        store()
          .leases.finish(run.id, leaseId, holder, 'Failed')
          .catch((error: Error) => error),
      ]);
    const unknownId = await refusals(neverIssued, CONTROLLER_B);
    for (const other of [CONTROLLER_B, ADMIN, OIDC_NAMED_ADMIN]) {
      const answers = await refusals(lease.id, other);
      for (const answer of answers) expect(answer).toBeInstanceOf(LeaseNotHeldError);
      // The same messages as for an id that was never issued: nothing says the lease exists.
      expect(answers.map((answer) => (answer as Error).message)).toEqual(
        unknownId.map((answer) => (answer as Error).message),
      );
    }
    expect(await linesOf(run.id)).toEqual([]);
    expect(await store().records.getRun('leases', run.id)).toEqual(before);
    expect((await store().leases.renew(run.id, lease.id, CONTROLLER_A, LEASE_MS)).lease.id).toBe(lease.id);
  });

  it("binds the admin's own claim to the admin: a ServiceAccount or an OIDC user named admin cannot use it", async () => {
    await newRun('bound-admin');
    const { run, lease } = (await claimIn('bound-admin', ADMIN))!;
    for (const other of [CONTROLLER_A, OIDC_NAMED_ADMIN])
      await expect(store().logChunks.appendChunk(run.id, lease.id, other, 1, ['x'])).rejects.toBeInstanceOf(
        LeaseNotHeldError,
      );
    expect(await store().leases.finish(run.id, lease.id, ADMIN, 'Succeeded')).toMatchObject({ phase: 'Succeeded' });
    // The retry of a final call is recognised for its holder only.
    await expect(store().leases.finish(run.id, lease.id, OIDC_NAMED_ADMIN, 'Succeeded')).rejects.toMatchObject({
      reason: 'LeaseNotHeld',
    });
  });
});

describe("The user's message from the start of the run and the controller's status message are each their own field", () => {
  it("keeps the user's message when the controller reports its own", async () => {
    await newRun('messages', { message: 'first plan' });
    const { run, lease } = (await claimIn('messages'))!;
    expect(await store().leases.finish(run.id, lease.id, CONTROLLER_A, 'Succeeded', 'plan ok')).toMatchObject({
      message: 'first plan',
      statusMessage: 'plan ok',
    });
  });
});

describe('A user cancels a run: a pending one is cancelled at once; a running one is marked, seen by the controller at its next renewal, and acknowledged', () => {
  it('cancels a Pending run at once, so no controller ever claims it', async () => {
    const run = await newRun('cancel-pending');
    const cancelled = await store().records.requestCancel('leases', run.id, 'alice@example.com');
    expect(cancelled).toMatchObject({
      phase: 'Cancelled',
      finishedAt: expect.any(String),
      cancelRequestedBy: 'alice@example.com',
      cancelRequestedAt: expect.any(String),
      startedAt: null,
    });
    expect(await claimIn('cancel-pending')).toBeUndefined();
    expect(await store().records.requestCancel('leases', run.id, 'bob')).toEqual(cancelled);
  });

  it('marks a Running run; the renewal says so; the holder acknowledges with Cancelled', async () => {
    await newRun('cancel-running');
    const { run, lease } = (await claimIn('cancel-running'))!;
    await expect(store().leases.finish(run.id, lease.id, CONTROLLER_A, 'Cancelled')).rejects.toBeInstanceOf(
      InvalidPhaseTransitionError,
    );
    expect(await store().records.requestCancel('leases', run.id, 'alice@example.com')).toMatchObject({
      phase: 'Running',
      cancelRequestedBy: 'alice@example.com',
      finishedAt: null,
    });
    expect((await store().leases.renew(run.id, lease.id, CONTROLLER_A, LEASE_MS)).lease.cancelRequested).toBe(true);
    expect(await store().leases.finish(run.id, lease.id, CONTROLLER_A, 'Cancelled', 'stopped at step 2')).toMatchObject(
      {
        phase: 'Cancelled',
        statusMessage: 'stopped at step 2',
      },
    );
  });

  it('cancels a marked run whose lease lapsed instead of queueing it again', async () => {
    await newRun('cancel-lapsed');
    const { run } = (await claimIn('cancel-lapsed', CONTROLLER_A, SHORT_LEASE_MS))!;
    await store().records.requestCancel('leases', run.id, 'alice@example.com');
    await lapse();
    expect(await claimIn('cancel-lapsed')).toBeUndefined();
    expect(await store().records.getRun('leases', run.id)).toMatchObject({
      phase: 'Cancelled',
      statusMessage: expect.stringContaining('lapsed after cancellation was requested'),
    });
  });

  it('refuses to cancel a finished run (409) and leaves it as it was', async () => {
    await newRun('cancel-finished');
    const { run, lease } = (await claimIn('cancel-finished'))!;
    const done = await store().leases.finish(run.id, lease.id, CONTROLLER_A, 'Failed', 'exit 1');
    await expect(store().records.requestCancel('leases', run.id, 'alice@example.com')).rejects.toMatchObject({
      reason: 'InvalidPhaseTransition',
      from: 'Failed',
      to: 'Cancelled',
    });
    await expect(store().records.requestCancel('another-project', run.id, 'alice@example.com')).rejects.toMatchObject({
      reason: 'RunNotFound',
    });
    expect(await store().records.getRun('leases', run.id)).toEqual(done);
  });
});

describe('The phase machine is one table (from, to, who, what is required) that the code and the docs share', () => {
  it('docs/run-history.md carries the table exactly as the code declares it', async () => {
    const docs = await readFile(new URL('../../../docs/run-history.md', import.meta.url), 'utf8');
    expect(docs).toContain(phaseMachineTable());
  });
});
