import type { EventChannel } from './event-channel.ts';

/** An SSE comment: keeps proxies from closing an idle stream; EventSource ignores it. */
const HEARTBEAT = ': heartbeat\n\n';

const byInterval = new Map<number, { timer: NodeJS.Timeout; channels: Set<EventChannel> }>();

/**
 * Offers a heartbeat to every stream of the process from one timer per interval, not one timer
 * per stream (issue 25): thousands of streams of one run beat together. A stream's first beat
 * comes within one interval of its start.
 */
export function startHeartbeats(channel: EventChannel, intervalMs: number): void {
  let group = byInterval.get(intervalMs);
  if (group === undefined) {
    const channels = new Set<EventChannel>();
    const timer = setInterval(() => {
      for (const member of channels) member.offer(HEARTBEAT);
    }, intervalMs);
    group = { timer, channels };
    byInterval.set(intervalMs, group);
  }
  group.channels.add(channel);
}

/** Ends a stream's heartbeats; the interval's timer stops with its last stream. */
export function stopHeartbeats(channel: EventChannel, intervalMs: number): void {
  const group = byInterval.get(intervalMs);
  if (group === undefined || !group.channels.delete(channel) || group.channels.size > 0) return;
  clearInterval(group.timer);
  byInterval.delete(intervalMs);
}
