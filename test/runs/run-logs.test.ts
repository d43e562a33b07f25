import { describe, expect, it } from 'vitest';
import type { RunLogLine } from '../../shared/runs/run.ts';
import { RunNotFoundError } from '../../shared/runs/run-errors.ts';
import { useRunStore } from './run-store-fixture.ts';

const { store } = useRunStore();

const newRun = () =>
  store().createRun({ project: 'logs', workspace: 'w', type: 'apply', principal: 'admin', principalType: 'admin' });

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
    expect(await store().readLogLines(first.id, 0, 100)).toEqual([
      { seq: 1, line: 'a' },
      { seq: 2, line: 'b' },
      { seq: 3, line: 'c' },
    ]);
    expect(await store().readLogLines(first.id, 1, 1)).toEqual([{ seq: 2, line: 'b' }]);
  });

  it('gives concurrent appenders distinct, gapless numbers', async () => {
    const run = await newRun();
    await Promise.all(Array.from({ length: 20 }, (_, i) => store().appendLogLines(run.id, [`x${i}`, `y${i}`])));
    const lines = await store().readLogLines(run.id, 0, 100);
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
    const unsubscribe = await store().subscribeToLogLines({ runId: run.id, afterSeq: 1, onLines });
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
    const unsubscribeFirst = await store().subscribeToLogLines({ runId: first.id, afterSeq: 0, onLines: firstLines.onLines });
    const unsubscribeSecond = await store().subscribeToLogLines({
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
