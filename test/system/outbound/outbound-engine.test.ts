// Issue 47, item 3 ("delivery you can trust") and item 5 ("safe outbound calls"): the outbound engine
// (shared/domain/outbound/) against a real PostgreSQL and real HTTP receivers started here.
import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadOutboundSettings } from '../../../shared/base/config/outbound-settings.ts';
import { poolDatabase } from '../../../shared/base/database/database.ts';
import { createLogger } from '../../../shared/base/logging/logger.ts';
import { OutboundAddressPolicy } from '../../../shared/domain/outbound/outbound-address-policy.ts';
import { OutboundCaller } from '../../../shared/domain/outbound/outbound-call.ts';
import { OutboundEngine, type SweepReport } from '../../../shared/domain/outbound/outbound-engine.ts';
import { retryDelayMs } from '../../../shared/domain/outbound/retry-schedule.ts';
import { REPO_ROOT } from '../../support/function-servers.ts';
import { instancePools } from '../../support/test-database.ts';
import { useRunStore } from '../../support/run-store-fixture.ts';
import {
  attemptsOf,
  CONTROLLER,
  deliveriesOf,
  newRun,
  startReceiver,
  testOutboundSettings,
  testReceivers,
  type TestReceiver,
} from '../../support/outbound-fixtures.ts';

const { database, store } = useRunStore();
const logger = createLogger({ level: 'error' });
const receivers: TestReceiver[] = [];
const WAIT = { timeout: 60_000, interval: 20 };

async function receiver(): Promise<TestReceiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

function engine(routes: Map<string, string>, overrides: Record<string, string> = {}, pool = database().pool) {
  return new OutboundEngine(poolDatabase(pool), [testReceivers(routes)], testOutboundSettings(overrides), logger);
}

/** Sweeps until `done` holds (each sweep waits for its own attempts). */
async function sweepUntil(outbound: OutboundEngine, done: () => Promise<boolean>): Promise<SweepReport[]> {
  const reports: SweepReport[] = [];
  await vi.waitFor(async () => {
    reports.push(await outbound.sweep());
    if (!(await done())) throw new Error('not yet');
  }, WAIT);
  return reports;
}

const settled = (receiverKey: string) => async () =>
  (await deliveriesOf(database().pool, receiverKey)).every((delivery) => delivery.state !== 'pending');

beforeEach(async () => {
  await database().pool.query('TRUNCATE outbox_events CASCADE');
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((started) => started.close()));
});
afterAll(async () => Promise.all(receivers.map((started) => started.close())));

describe('Issue 47, item 3: the event is recorded in the same database transaction as the change it reports', () => {
  it('creating a run and each change of its phase record one event each, in the statement that makes the change', async () => {
    const run = await store().records.createRun(newRun());
    const leased = await store().leases.claim(CONTROLLER, 60_000);
    await store().leases.finish(run.id, leased!.lease.id, CONTROLLER, 'Succeeded', 'no changes');
    const { rows } = await database().pool.query(
      'SELECT type, subject, scope, data FROM outbox_events ORDER BY created_at, id',
    );
    expect(rows.map((row) => row.type)).toEqual(['run.created', 'run.running', 'run.succeeded']);
    expect(rows.every((row) => row.subject === `runs/${run.id}` && row.scope === 'shop')).toBe(true);
    expect(rows[2].data).toMatchObject({ id: run.id, phase: 'Succeeded', statusMessage: 'no changes' });
  });

  it('a change rolled back leaves no event', async () => {
    const client = await database().pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO runs (id, project, workspace, type, phase, principal, principal_type, message)
         VALUES (gen_random_uuid(), 'shop', 'web', 'plan', 'Pending', 'admin', 'admin', '')`,
      );
      expect((await client.query('SELECT count(*)::int AS n FROM outbox_events')).rows[0].n).toBe(1);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect((await database().pool.query('SELECT count(*)::int AS n FROM outbox_events')).rows[0].n).toBe(0);
  });
});

describe('Issue 47, item 3: delivered at least once with a stable event id, in order per subject', () => {
  it('every event reaches every receiver once, with the id recorded in the outbox, in the order of its subject', async () => {
    const [first, second] = [await receiver(), await receiver()];
    const outbound = engine(
      new Map([
        ['first', first.url],
        ['second', second.url],
      ]),
    );
    const run = await store().records.createRun(newRun());
    const leased = await store().leases.claim(CONTROLLER, 60_000);
    await store().leases.finish(run.id, leased!.lease.id, CONTROLLER, 'Failed', 'boom');
    await sweepUntil(outbound, async () => (await settled('test:first')()) && (await settled('test:second')()));
    const { rows } = await database().pool.query('SELECT id, type FROM outbox_events ORDER BY created_at, id');
    for (const got of [first, second]) {
      expect(got.received.map((request) => request.headers['x-event-id'])).toEqual(rows.map((row) => row.id));
      expect(got.received.map((request) => JSON.parse(request.body).type)).toEqual([
        'run.created',
        'run.running',
        'run.failed',
      ]);
    }
  });

  it("a later event of a subject waits while an earlier one is retried; another subject's events do not", async () => {
    const target = await receiver();
    const runs = [await store().records.createRun(newRun('web')), await store().records.createRun(newRun('db'))];
    const failing = runs[0]!.id;
    let failuresLeft = 2;
    // The first run's creation fails twice; its next event must not arrive before it.
    target.answer = (request, response) => {
      const body = JSON.parse(request.body);
      if (body.data.id === failing && body.type === 'run.created' && failuresLeft-- > 0) {
        response.statusCode = 503;
        response.end('busy');
        return;
      }
      response.end('ok');
    };
    await store().records.requestCancel('shop', failing, 'admin');
    await store().records.requestCancel('shop', runs[1]!.id, 'admin');
    await sweepUntil(engine(new Map([['target', target.url]])), settled('test:target'));
    const delivered = target.received
      .filter((request) => request.headers['x-attempt'] !== undefined)
      .map((request) => JSON.parse(request.body))
      .filter(
        (body, index, all) =>
          all.findIndex((other) => other.type === body.type && other.data.id === body.data.id) === index,
      );
    const order = (id: string) => delivered.filter((body) => body.data.id === id).map((body) => body.type);
    expect(order(failing)).toEqual(['run.created', 'run.cancelled']);
    expect(order(runs[1]!.id)).toEqual(['run.created', 'run.cancelled']);
    const createdAttempts = target.received.filter(
      (request) => JSON.parse(request.body).data.id === failing && JSON.parse(request.body).type === 'run.created',
    );
    expect(createdAttempts.map((request) => request.headers['x-attempt'])).toEqual(['1', '2', '3']);
    const cancelled = target.received.find(
      (request) => JSON.parse(request.body).data.id === failing && JSON.parse(request.body).type === 'run.cancelled',
    )!;
    expect(cancelled.at).toBeGreaterThanOrEqual(createdAttempts[2]!.at);
  });
});

describe('Issue 47, item 3: exponential back-off with jitter, and a documented maximum of attempts', () => {
  it('the wait doubles per attempt up to the maximum, between half and all of it', () => {
    const schedule = { retryBaseMs: 1_000, retryMaxMs: 10_000 };
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(attempt, schedule, () => 0))).toEqual([
      500, 1_000, 2_000, 4_000, 5_000,
    ]);
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(attempt, schedule, () => 0.999_999))).toEqual([
      1_000, 2_000, 4_000, 8_000, 10_000,
    ]);
  });

  it('a receiver that keeps failing is tried OUTBOUND_MAX_ATTEMPTS times, waiting longer each time, then given up', async () => {
    const failing = await receiver();
    failing.answer = (_request, response) => {
      response.statusCode = 500;
      response.end('{"error":"down"}');
    };
    await store().records.createRun(newRun());
    await sweepUntil(
      engine(new Map([['failing', failing.url]]), {
        OUTBOUND_MAX_ATTEMPTS: '4',
        OUTBOUND_RETRY_BASE: '200ms',
        OUTBOUND_RETRY_MAX: '10s',
      }),
      settled('test:failing'),
    );
    expect(await deliveriesOf(database().pool, 'test:failing')).toMatchObject([{ state: 'failed', attempts: 4 }]);
    const attempts = await attemptsOf(database().pool, 'test:failing');
    expect(attempts.map((attempt) => [attempt.attempt, attempt.statusCode, attempt.answerHead])).toEqual([
      [1, 500, '{"error":"down"}'],
      [2, 500, '{"error":"down"}'],
      [3, 500, '{"error":"down"}'],
      [4, 500, '{"error":"down"}'],
    ]);
    expect(attempts[0]!.error).toBe('the receiver answered 500');
    // Each wait is at least half of its step of the schedule: 100, 200, 400 ms.
    const gaps = attempts
      .slice(1)
      .map((attempt, index) => attempt.startedAt.getTime() - attempts[index]!.startedAt.getTime());
    for (const [index, gap] of gaps.entries()) expect(gap).toBeGreaterThanOrEqual(100 * 2 ** index - 5);
    expect(failing.received).toHaveLength(4);
  });
});

describe('Issue 47, item 5: timeouts, no redirect followed, an answer size limit', () => {
  it('a receiver that does not answer within OUTBOUND_TIMEOUT is an attempt that failed, tried again later', async () => {
    const silent = await receiver();
    silent.answer = () => undefined;
    await store().records.createRun(newRun());
    const outbound = engine(new Map([['silent', silent.url]]), { OUTBOUND_TIMEOUT: '300ms' });
    await sweepUntil(outbound, async () => (await attemptsOf(database().pool, 'test:silent')).length > 0);
    const [attempt] = await attemptsOf(database().pool, 'test:silent');
    expect(attempt).toMatchObject({
      statusCode: null,
      error: expect.stringMatching(/within 300 ms \(OUTBOUND_TIMEOUT\)/),
    });
    expect(await deliveriesOf(database().pool, 'test:silent')).toMatchObject([{ state: 'pending', attempts: 1 }]);
  });

  it('a slow receiver delays no other: the fast one is delivered while the slow one still has not answered', async () => {
    const [slow, fast] = [await receiver(), await receiver()];
    const held: (() => void)[] = [];
    slow.answer = (_request, response) => held.push(() => response.end('late'));
    await store().records.createRun(newRun());
    const outbound = engine(
      new Map([
        ['slow', slow.url],
        ['fast', fast.url],
      ]),
      { OUTBOUND_TIMEOUT: '60s' },
    );
    const sweeping = outbound.sweep();
    await vi.waitFor(async () => {
      expect(await deliveriesOf(database().pool, 'test:fast')).toMatchObject([{ state: 'delivered' }]);
    }, WAIT);
    expect(held).toHaveLength(1);
    expect(await deliveriesOf(database().pool, 'test:slow')).toMatchObject([{ state: 'pending' }]);
    for (const release of held) release();
    await sweeping;
    expect(await deliveriesOf(database().pool, 'test:slow')).toMatchObject([{ state: 'delivered' }]);
  });

  it('a redirect is not followed: the attempt fails and the address it points to is never called', async () => {
    const [redirecting, elsewhere] = [await receiver(), await receiver()];
    redirecting.answer = (_request, response) => {
      response.writeHead(307, { location: elsewhere.url });
      response.end();
    };
    await store().records.createRun(newRun());
    await sweepUntil(engine(new Map([['redirecting', redirecting.url]])), settled('test:redirecting'));
    expect(elsewhere.received).toHaveLength(0);
    const attempts = await attemptsOf(database().pool, 'test:redirecting');
    expect(attempts).toHaveLength(3);
    expect(attempts[0]).toMatchObject({ statusCode: 307, error: expect.stringMatching(/redirect .* not followed/) });
  });

  it('at most OUTBOUND_MAX_ANSWER_BYTES of an answer are read: an endless answer ends the attempt, delivered', async () => {
    const endless = await receiver();
    endless.answer = (_request, response) => {
      const chunk = 'x'.repeat(16_384);
      const write = () => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', write);
      };
      response.on('error', () => undefined);
      write();
    };
    await store().records.createRun(newRun());
    await sweepUntil(
      engine(new Map([['endless', endless.url]]), { OUTBOUND_MAX_ANSWER_BYTES: '2048', OUTBOUND_TIMEOUT: '60s' }),
      settled('test:endless'),
    );
    const [attempt] = await attemptsOf(database().pool, 'test:endless');
    expect(attempt).toMatchObject({ statusCode: 200, error: null, answerHead: 'x'.repeat(512) });
  });
});

describe('Issue 47, item 5: no delivery to loopback, link-local, private or metadata addresses unless an operator allows a range', () => {
  it('each class of address is refused, IPv4 and IPv6, an IPv4-mapped address as the address it carries; public ones pass', () => {
    const policy = new OutboundAddressPolicy([]);
    const refused = {
      '127.0.0.1': 'loopback',
      '10.1.2.3': 'private',
      '172.16.0.1': 'private',
      '192.168.1.1': 'private',
      '169.254.169.254': 'linkLocal',
      '100.100.100.200': 'carrierGradeNat',
      '0.0.0.0': 'unspecified',
      '224.0.0.251': 'multicast',
      '255.255.255.255': 'broadcast',
      '::1': 'loopback',
      '::': 'unspecified',
      'fe80::1': 'linkLocal',
      'fd00:ec2::254': 'uniqueLocal',
      'ff02::1': 'multicast',
      '::ffff:127.0.0.1': 'loopback',
      '::ffff:169.254.169.254': 'linkLocal',
    };
    for (const [address, range] of Object.entries(refused)) expect(policy.refusal(address)?.range, address).toBe(range);
    for (const address of ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '::ffff:93.184.215.14'])
      expect(policy.refusal(address), address).toBeUndefined();
    const allowing = new OutboundAddressPolicy(['10.0.0.0/8', 'fd00::/8']);
    expect(allowing.refusal('10.1.2.3')).toBeUndefined();
    expect(allowing.refusal('fd00:ec2::254')).toBeUndefined();
    expect(allowing.refusal('192.168.1.1')?.range).toBe('private');
  });

  it('the URL forms a hostile client writes (decimal, octal, hex, short, IPv4-mapped, unspecified, IPv4-compatible IPv6) are refused as the address they are, before any connection', async () => {
    const caller = new OutboundCaller(new OutboundAddressPolicy([]), { timeoutMs: 60_000, maxAnswerBytes: 1_024 });
    const refused = {
      'http://2130706433/': '127.0.0.1, a loopback',
      'http://017700000001/': '127.0.0.1, a loopback',
      'http://0x7f.1/': '127.0.0.1, a loopback',
      'http://127.1/': '127.0.0.1, a loopback',
      'http://[::ffff:127.0.0.1]/': '127.0.0.1, a loopback',
      'http://[0:0:0:0:0:ffff:7f00:1]/': '127.0.0.1, a loopback',
      'http://[::ffff:a9fe:a9fe]/': '169.254.169.254, a linkLocal',
      'http://0.0.0.0/': '0.0.0.0, a unspecified',
      'http://[::]/': '::, a unspecified',
      'http://[::127.0.0.1]/': '::7f00:1, a reserved',
      'http://[::a9fe:a9fe]/': '::a9fe:a9fe, a reserved',
      'http://[100::1]/': '100::1, a discard',
      'http://[4000::1]/': '4000::1, a reserved',
    };
    for (const [url, refusal] of Object.entries(refused)) {
      const answer = await caller.send({ url, headers: {}, body: '' });
      expect(answer.error, url).toBe(`refused: ${refusal} address (OUTBOUND_ALLOWED_CIDRS may allow its range)`);
    }
    expect(new OutboundAddressPolicy(['::/96']).refusal('::7f00:1')).toBeUndefined();
  });

  it('OUTBOUND_ALLOWED_CIDRS is checked at start, naming the variable', () => {
    expect(() => loadOutboundSettings({ OUTBOUND_ALLOWED_CIDRS: '10.0.0.0/8, 300.0.0.0/8' })).toThrow(
      /^OUTBOUND_ALLOWED_CIDRS: "300.0.0.0\/8" is not a CIDR range/,
    );
    expect(() => loadOutboundSettings({ OUTBOUND_MAX_ATTEMPTS: '51' })).toThrow(/^OUTBOUND_MAX_ATTEMPTS:/);
    expect(() => loadOutboundSettings({ OUTBOUND_TIMEOUT: '3m' })).toThrow(/^OUTBOUND_TIMEOUT:/);
    expect(() => loadOutboundSettings({ OUTBOUND_SWEEP_INTERVAL: '1000h' })).toThrow(/^OUTBOUND_SWEEP_INTERVAL:/);
    expect(() => loadOutboundSettings({ OUTBOUND_SOURCE_INTERVAL: '11m' })).toThrow(/^OUTBOUND_SOURCE_INTERVAL:/);
    expect(loadOutboundSettings({}).sourceIntervalMs).toBe(10_000);
    expect(() => loadOutboundSettings({ OUTBOUND_RETRY_BASE: '2h' })).toThrow(/^OUTBOUND_RETRY_BASE:/);
  });

  it('without the range allowed, a receiver on 127.0.0.1, or on a name resolving to it, is never called', async () => {
    const local = await receiver();
    const byName = local.url.replace('127.0.0.1', 'localhost');
    await store().records.createRun(newRun());
    const outbound = engine(
      new Map([
        ['literal', local.url],
        ['name', byName],
      ]),
      { OUTBOUND_ALLOWED_CIDRS: '' },
    );
    await sweepUntil(outbound, async () => (await settled('test:literal')()) && (await settled('test:name')()));
    expect(local.received).toHaveLength(0);
    expect((await attemptsOf(database().pool, 'test:literal'))[0]?.error).toMatch(
      /^refused: 127\.0\.0\.1, a loopback address \(OUTBOUND_ALLOWED_CIDRS may allow its range\)$/,
    );
    expect((await attemptsOf(database().pool, 'test:name'))[0]?.error).toMatch(
      /^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address/,
    );
  });

  it('with 127.0.0.1/32 allowed, the same receiver is called', async () => {
    const local = await receiver();
    await store().records.createRun(newRun());
    await sweepUntil(engine(new Map([['literal', local.url]])), settled('test:literal'));
    expect(local.received).toHaveLength(1);
  });
});

describe('Issue 47, item 3: work shared across every instance', () => {
  it('two instances sweeping at once deliver each event once per attempt', async () => {
    const target = await receiver();
    const routes = new Map([['target', target.url]]);
    const pools = instancePools(database(), 2);
    try {
      const instances = pools.map((pool) => engine(routes, { OUTBOUND_CONCURRENCY_PER_RECEIVER: '8' }, pool));
      for (let index = 0; index < 40; index++) await store().records.createRun(newRun(`w${index}`));
      await vi.waitFor(async () => {
        await Promise.all(instances.map((instance) => instance.sweep()));
        if (!(await settled('test:target')()) || (await deliveriesOf(database().pool, 'test:target')).length < 40)
          throw new Error('not yet');
      }, WAIT);
      const ids = target.received.map((request) => request.headers['x-event-id']);
      expect(ids).toHaveLength(40);
      expect(new Set(ids).size).toBe(40);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });
});

describe('Issue 47, item 3: nothing is lost when an instance dies', () => {
  it('SIGKILL of an instance between the change and the delivery: another instance delivers the event once its lease expires', async () => {
    const target = await receiver();
    // The killed instance's attempt never gets an answer; every later one does.
    target.answer = (_request, response) => {
      if (target.received.length > 1) response.end('ok');
    };
    const child = spawn(process.execPath, ['test/support/outbound-instance-process.ts'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, DATABASE_URL: database().connectionString, RECEIVER_URL: target.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, signal) => resolve(signal)),
    );
    await vi.waitFor(() => {
      if (child.exitCode !== null) throw new Error(`the instance ended before it was killed: ${output}`);
      expect(target.received).toHaveLength(1);
    }, WAIT);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const runId = output.trim();
    expect(await deliveriesOf(database().pool, 'test:target')).toMatchObject([{ state: 'pending', attempts: 1 }]);
    await sweepUntil(engine(new Map([['target', target.url]])), settled('test:target'));
    expect(target.received.map((request) => request.headers['x-event-id'])).toEqual([
      target.received[0]!.headers['x-event-id'],
      target.received[0]!.headers['x-event-id'],
    ]);
    expect(JSON.parse(target.received[1]!.body)).toMatchObject({ type: 'run.created', data: { id: runId } });
    expect(target.received[1]!.headers['x-attempt']).toBe('2');
  });
});

describe('Issue 47, item 4: retention of the outbox and the delivery log', () => {
  it('events older than OUTBOUND_RETENTION are removed with their deliveries and attempts; newer ones stay', async () => {
    const target = await receiver();
    const outbound = engine(new Map([['target', target.url]]), { OUTBOUND_RETENTION: '1h' });
    await store().records.createRun(newRun('old'));
    await sweepUntil(outbound, settled('test:target'));
    await database().pool.query(`UPDATE outbox_events SET created_at = now() - interval '2 hours'`);
    await store().records.createRun(newRun('fresh'));
    expect(await outbound.removeExpired()).toBe(1);
    const count = async (table: string) =>
      (await database().pool.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;
    expect(await count('outbox_events')).toBe(1);
    expect(await count('outbound_deliveries')).toBe(0);
    expect(await count('outbound_attempts')).toBe(0);
    expect((await database().pool.query('SELECT data FROM outbox_events')).rows[0].data.workspace).toBe('fresh');
  });
});
