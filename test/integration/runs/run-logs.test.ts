import { describe, expect, it } from 'vitest';
import type { RunLogLine } from '../../../shared/domain/runs/run.ts';
import { RunNotFoundError } from '../../../shared/domain/runs/run-errors.ts';
import { RunLogListener, type ReadLogLines } from '../../../shared/domain/runs/logs/run-log-listener.ts';
import { useRunStore } from '../../support/run-store-fixture.ts';

const { store, database } = useRunStore();

const newRun = () =>
  store().records.createRun({
    project: 'logs',
    workspace: 'w',
    type: 'apply',
    principal: 'admin',
    principalType: 'admin',
  });

/** Collects delivered lines and resolves once `count` have arrived. */
function collector(count: number) {
  const received: RunLogLine[] = [];
  let done: () => void;
  const complete = new Promise<void>((resolve) => (done = resolve));
  const onLines = (lines: readonly RunLogLine[]) => {
    received.push(...lines);
    if (received.length >= count) done();
  };
  return { received, complete, onLines };
}

describe('log lines are durable once appended, numbered 1, 2, 3… per run', () => {
  it('numbers lines per run and reads them back in order after a sequence number', async () => {
    const first = await newRun();
    const second = await newRun();
    expect(await store().appendLogLines(first.id, ['a', 'b'])).toEqual([
      { seq: 1, line: 'a' },
      { seq: 2, line: 'b' },
    ]);
    expect(await store().appendLogLines(second.id, ['x'])).toEqual([{ seq: 1, line: 'x' }]);
    await store().appendLogLines(first.id, ['c']);
    expect(await store().logs.readLogLines(first.id, 0, 100)).toEqual([
      { seq: 1, line: 'a' },
      { seq: 2, line: 'b' },
      { seq: 3, line: 'c' },
    ]);
    expect(await store().logs.readLogLines(first.id, 1, 1)).toEqual([{ seq: 2, line: 'b' }]);
  });

  it('gives concurrent appenders distinct, gapless numbers', async () => {
    const run = await newRun();
    await Promise.all(Array.from({ length: 20 }, (_, i) => store().appendLogLines(run.id, [`x${i}`, `y${i}`])));
    const lines = await store().logs.readLogLines(run.id, 0, 100);
    expect(lines.map((line) => line.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  it('refuses lines for an unknown run', async () => {
    await expect(store().appendLogLines('0190a0a0-0000-7000-8000-000000000000', ['a'])).rejects.toBeInstanceOf(
      RunNotFoundError,
    );
  });
});

describe('a log subscriber gets the stored lines after its position, then new lines as they are appended', () => {
  it('delivers existing lines, then appended ones, in order and without duplicates', async () => {
    const run = await newRun();
    await store().appendLogLines(run.id, ['one', 'two', 'three']);
    const { received, complete, onLines } = collector(4);
    const unsubscribe = await store().logs.subscribeToLogLines({ runId: run.id, afterSeq: 1, onLines });
    await store().appendLogLines(run.id, ['four']);
    await store().appendLogLines(run.id, ['five']);
    await complete;
    await unsubscribe();
    expect(received.map((line) => line.line)).toEqual(['two', 'three', 'four', 'five']);
  });

  it('keeps subscribers of different runs apart and stops delivering after unsubscribe', async () => {
    const [first, second] = [await newRun(), await newRun()];
    const firstLines = collector(1);
    const secondLines = collector(1);
    const unsubscribeFirst = await store().logs.subscribeToLogLines({
      runId: first.id,
      afterSeq: 0,
      onLines: firstLines.onLines,
    });
    const unsubscribeSecond = await store().logs.subscribeToLogLines({
      runId: second.id,
      afterSeq: 0,
      onLines: secondLines.onLines,
    });
    await store().appendLogLines(first.id, ['for first']);
    await store().appendLogLines(second.id, ['for second']);
    await Promise.all([firstLines.complete, secondLines.complete]);
    await unsubscribeFirst();
    await store().appendLogLines(first.id, ['after unsubscribe']);
    await store().appendLogLines(second.id, ['still listening']);
    await expect.poll(() => secondLines.received.length).toBe(2);
    await unsubscribeSecond();
    expect(firstLines.received.map((line) => line.line)).toEqual(['for first']);
    expect(secondLines.received.map((line) => line.line)).toEqual(['for second', 'still listening']);
  });
});

/** A log reader over the store that counts its reads and how many run at once. */
function countingReader() {
  const stats = { reads: 0, inFlight: 0, maxInFlight: 0, limits: new Set<number>() };
  const read: ReadLogLines = async (runId, afterSeq, limit) => {
    stats.reads++;
    stats.limits.add(limit);
    stats.maxInFlight = Math.max(stats.maxInFlight, ++stats.inFlight);
    try {
      return await store().logs.readLogLines(runId, afterSeq, limit);
    } finally {
      stats.inFlight--;
    }
  };
  return { stats, read };
}

describe('Shared fan-out: per process, one read per run per notification; lines go from memory to every subscriber at the shared cursor', () => {
  it('50 subscribers of one run: an append that fits in the notification costs no read, one that does not costs exactly one', async () => {
    const run = await newRun();
    await store().appendLogLines(run.id, ['stored']);
    const { stats, read } = countingReader();
    const listener = new RunLogListener(database().pool.options, read);
    const subscribers = Array.from({ length: 50 }, () => collector(0));
    const unsubscribes = await Promise.all(
      subscribers.map((subscriber) => listener.subscribe({ runId: run.id, afterSeq: 0, onLines: subscriber.onLines })),
    );
    const everyoneHas = (count: number) =>
      expect
        .poll(() => subscribers.every((subscriber) => subscriber.received.length === count), { timeout: 10_000 })
        .toBe(true);
    await store().appendLogLines(run.id, ['warm-up']);
    await everyoneHas(2);

    stats.reads = 0;
    await store().appendLogLines(run.id, ['small line']);
    await everyoneHas(3);
    expect(stats.reads).toBe(0);

    const large = 'x'.repeat(10_000);
    await store().appendLogLines(run.id, [large]);
    await everyoneHas(4);
    expect(stats.reads).toBe(1);
    for (const subscriber of subscribers) expect(subscriber.received.map((line) => line.seq)).toEqual([1, 2, 3, 4]);
    expect(subscribers[0]!.received[3]!.line).toBe(large);
    await Promise.all(unsubscribes.map((unsubscribe) => unsubscribe()));
  });

  it('subscribers behind catch up in pages, at most concurrentCatchUps reads at once, and each gets every line once, in order, while lines keep arriving', async () => {
    const run = await newRun();
    await store().appendLogLines(
      run.id,
      Array.from({ length: 45 }, (_, i) => `stored ${i + 1}`),
    );
    const { stats, read } = countingReader();
    const listener = new RunLogListener(database().pool.options, read, { pageSize: 10, concurrentCatchUps: 2 });
    const starts = Array.from({ length: 20 }, (_, i) => (i * 7) % 45);
    const subscribers = starts.map(() => collector(0));
    const appending = (async () => {
      for (let i = 0; i < 5; i++) await store().appendLogLines(run.id, [`live ${2 * i + 46}`, `live ${2 * i + 47}`]);
    })();
    const unsubscribes = await Promise.all(
      subscribers.map((subscriber, i) =>
        listener.subscribe({ runId: run.id, afterSeq: starts[i]!, onLines: subscriber.onLines }),
      ),
    );
    await appending;
    await expect
      .poll(() => subscribers.every((subscriber) => subscriber.received.at(-1)?.seq === 55), { timeout: 10_000 })
      .toBe(true);
    subscribers.forEach((subscriber, i) => {
      expect(subscriber.received.map((line) => line.seq)).toEqual(
        Array.from({ length: 55 - starts[i]! }, (_, k) => starts[i]! + k + 1),
      );
    });
    expect([...stats.limits]).toEqual([10]);
    // Two catch-up readers, plus at most the run's one shared read.
    expect(stats.maxInFlight).toBeLessThanOrEqual(3);
    await Promise.all(unsubscribes.map((unsubscribe) => unsubscribe()));
  });
});
