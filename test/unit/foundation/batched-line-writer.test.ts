import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchedLineWriter } from '../../../shared/base/logging/batched-line-writer.ts';

function collectingSink(): { write(chunk: string): void; chunks: string[] } {
  const chunks: string[] = [];
  return { write: (chunk) => void chunks.push(chunk), chunks };
}

describe('Issue 10, logging: lines are written in batches, never one blocking write per line, and none is lost', () => {
  afterEach(() => vi.useRealTimers());

  it('holds lines until the batch is full, then writes them all, in order, in one write', () => {
    const sink = collectingSink();
    const writer = new BatchedLineWriter(sink, { maxBatchBytes: 30, maxDelayMs: 60_000 });
    writer.write('{"n":1}');
    writer.write('{"n":2}');
    expect(sink.chunks).toEqual([]);
    writer.write('{"n":3}');
    writer.write('{"n":4}');
    expect(sink.chunks).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n{"n":4}\n']);
  });

  it('writes a batch that is not full once its first line has waited the longest delay', () => {
    vi.useFakeTimers();
    const sink = collectingSink();
    const writer = new BatchedLineWriter(sink, { maxBatchBytes: 1_000, maxDelayMs: 100 });
    writer.write('first');
    vi.advanceTimersByTime(60);
    writer.write('second');
    expect(sink.chunks).toEqual([]);
    vi.advanceTimersByTime(40);
    expect(sink.chunks).toEqual(['first\nsecond\n']);
  });

  it('flush() writes what is pending at once, and nothing when nothing is', () => {
    const sink = collectingSink();
    const writer = new BatchedLineWriter(sink, { maxDelayMs: 60_000 });
    writer.flush();
    writer.write('pending');
    writer.flush();
    writer.flush();
    expect(sink.chunks).toEqual(['pending\n']);
  });
});
