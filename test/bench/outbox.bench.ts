// Issue 47, "Show": the outbound engine on one instance, against a real PostgreSQL and a healthy receiver
// on 127.0.0.1 started here (`npm run bench -- outbox`). Measured in one run:
// - the added cost on the write that records the event: creating a run with the outbox trigger on, beside
//   the same writes with it off (the baseline);
// - events per second through the outbox (routed, claimed, sent, recorded), beside the receiver's own
//   rate for the same POSTs sent straight from this process at the same concurrency (the baseline);
// - delivery latency p50/p99 from the commit of the change to the receiver, while runs are created at a
//   steady pace and the process sweeps on its timer (OUTBOUND_SWEEP_INTERVAL 100ms, the baseline);
// - the cost per row of the three tables (bytes per delivered event, indexes included): docs/notifications.md.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../../shared/base/logging/logger.ts';
import { OutboundEngine } from '../../shared/domain/outbound/outbound-engine.ts';
import { poolDatabase } from '../../shared/base/database/database.ts';
import { RunRecords } from '../../shared/domain/runs/records/run-records.ts';
import { newRun, testOutboundSettings, testReceivers } from '../support/outbound-fixtures.ts';
import { startTestDatabase } from '../support/test-database.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';

const quick = process.argv.includes('--quick');
const WRITES = quick ? 300 : 2_000;
const EVENTS = quick ? 300 : 2_000;
const PACED = quick ? 100 : 400;
const CONCURRENCY = 16;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

export const outboxBenchmark: Benchmark = async () => {
  const database = await startTestDatabase();
  const arrivals: { at: number; createdAt: string }[] = [];
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      arrivals.push({ at: Date.now(), createdAt: body.data?.createdAt });
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    const store = new RunRecords(poolDatabase(database.pool));
    const pool = database.pool;
    const writesPerSecond = async () => {
      const started = performance.now();
      for (let index = 0; index < WRITES; index++) await store.createRun(newRun(`w${index % 50}`));
      return WRITES / ((performance.now() - started) / 1_000);
    };
    await pool.query('ALTER TABLE runs DISABLE TRIGGER runs_record_creation');
    const withoutOutbox = await writesPerSecond();
    await pool.query('ALTER TABLE runs ENABLE TRIGGER runs_record_creation');
    const withOutbox = await writesPerSecond();
    await pool.query('TRUNCATE outbox_events CASCADE');

    const settings = testOutboundSettings({
      OUTBOUND_CONCURRENCY_PER_RECEIVER: String(CONCURRENCY),
      OUTBOUND_SWEEP_BATCH: '500',
      OUTBOUND_SWEEP_INTERVAL: '100ms',
    });
    const engine = new OutboundEngine(
      poolDatabase(pool),
      [testReceivers(new Map([['bench', url]]))],
      settings,
      createLogger({ level: 'error' }),
    );
    for (let index = 0; index < EVENTS; index++) await store.createRun(newRun(`e${index % 50}`));
    arrivals.length = 0;
    const throughStarted = performance.now();
    while (arrivals.length < EVENTS) await engine.sweep();
    const eventsPerSecond = EVENTS / ((performance.now() - throughStarted) / 1_000);

    const direct = async () => {
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next++ < EVENTS)
            await fetch(url, {
              method: 'POST',
              body: '{"data":{}}',
              headers: { 'content-type': 'application/json' },
            }).then((answer) => answer.text());
        }),
      );
      return EVENTS / ((performance.now() - started) / 1_000);
    };
    const directPerSecond = await direct();

    const { rows: sizes } = await pool.query<{ bytes: string; events: string }>(
      `SELECT pg_total_relation_size('outbox_events') + pg_total_relation_size('outbound_deliveries')
              + pg_total_relation_size('outbound_attempts') AS bytes, (SELECT count(*) FROM outbox_events) AS events`,
    );
    const bytesPerEvent = Number(sizes[0]!.bytes) / Number(sizes[0]!.events);

    await pool.query('TRUNCATE outbox_events CASCADE');
    arrivals.length = 0;
    let sweeping = true;
    const loop = (async () => {
      while (sweeping) {
        await engine.sweepIfIdle();
        await new Promise((resolve) => setTimeout(resolve, settings.sweepIntervalMs));
      }
    })();
    for (let index = 0; index < PACED; index++) {
      await store.createRun(newRun(`p${index % 50}`));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    while (arrivals.length < PACED) await new Promise((resolve) => setTimeout(resolve, 20));
    sweeping = false;
    await loop;
    const latencies = arrivals.map((arrival) => arrival.at - Date.parse(arrival.createdAt));

    const rows: BenchRow[] = [
      {
        name: 'run created with its outbox event (one statement, trigger)',
        value: withOutbox,
        unit: 'writes/s',
        baselineName: 'the same writes, outbox trigger off',
        baselineValue: withoutOutbox,
        ratio: withOutbox / withoutOutbox,
      },
      {
        name: `events delivered through the outbox, one instance, ${CONCURRENCY} at once`,
        value: eventsPerSecond,
        unit: 'events/s',
        baselineName: 'the same POSTs sent straight to the receiver',
        baselineValue: directPerSecond,
        ratio: eventsPerSecond / directPerSecond,
      },
      {
        name: 'delivery latency p50, commit to receiver',
        value: percentile(latencies, 50),
        unit: 'ms',
        baselineName: 'OUTBOUND_SWEEP_INTERVAL',
        baselineValue: settings.sweepIntervalMs,
      },
      {
        name: 'delivery latency p99, commit to receiver',
        value: percentile(latencies, 99),
        unit: 'ms',
        baselineName: 'OUTBOUND_SWEEP_INTERVAL',
        baselineValue: settings.sweepIntervalMs,
      },
      { name: 'bytes per delivered event (3 tables, indexes included)', value: bytesPerEvent, unit: 'bytes' },
    ];
    return rows;
  } finally {
    receiver.closeAllConnections();
    receiver.close();
    await database.destroy();
  }
};
