// Issue 20, item 4 at the unit: a run-log stream's send buffer judges what the client has not read
// (queued, plus the chunk the response took until it asks for the next), not the size of one batch.
import { describe, expect, it } from 'vitest';
import { EventChannel } from '../../../functions/run-logs/event-channel.ts';

const BOUND = 1_000;

describe('Issue 20: the send buffer judges what a client has not read, not the size of one batch', () => {
  it('takes a batch larger than the bound when the client has read everything before it', () => {
    const channel = new EventChannel(BOUND);
    expect(channel.tryPush('x'.repeat(4 * BOUND))).toBe(true);
    expect(channel.unreadBytes).toBe(4 * BOUND);
  });

  it('refuses the next batch while more than the bound is unread, counting the chunk the socket has not drained', async () => {
    const channel = new EventChannel(BOUND);
    const response = channel[Symbol.asyncIterator]();
    channel.tryPush('x'.repeat(2 * BOUND));
    // The response took the chunk; it has not come back for the next, so the socket has not drained it.
    expect((await response.next()).value).toHaveLength(2 * BOUND);
    expect(channel.unreadBytes).toBe(2 * BOUND);
    expect(channel.tryPush('y')).toBe(false);
    // Asking for the next chunk says the last one was written out: the client is reading again.
    const next = response.next();
    expect(channel.unreadBytes).toBe(0);
    expect(channel.tryPush('y')).toBe(true);
    expect((await next).value).toBe('y');
  });

  it('refuses a small batch once the queued chunks alone exceed the bound', () => {
    const channel = new EventChannel(BOUND);
    expect(channel.tryPush('x'.repeat(BOUND))).toBe(true);
    expect(channel.tryPush('x')).toBe(true);
    expect(channel.tryPush('x')).toBe(false);
  });
});
