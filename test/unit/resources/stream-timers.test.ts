// Issue 25, item 3 at the unit: the timers every open stream needs are shared (one heartbeat timer
// per interval, one expiry timer per token `exp`), yet each stream still gets its heartbeats and
// its end at `exp`, and none after it stopped.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventChannel } from '../../../functions/run-logs/event-channel.ts';
import { startHeartbeats, stopHeartbeats } from '../../../functions/run-logs/heartbeats.ts';
import type { AdminTokenAuthenticator } from '../../../shared/auth/admin-token.ts';
import type { OidcPrincipal } from '../../../shared/auth/principal.ts';
import type { AdminSettingsSource } from '../../../shared/base/config/admin-settings-source.ts';
import { type CredentialEnd, StreamSessions } from '../../../shared/domain/streams/stream-sessions.ts';

const HEARTBEAT_MS = 1_000;

/** What a reader of the channel has been handed so far (the chunks queued and not yet read). */
function queuedChunks(channel: EventChannel): number {
  return channel.unreadBytes;
}

describe('Issue 25: open streams share their timers', () => {
  afterEach(() => vi.useRealTimers());

  it('beats every stream of one interval from one timer, and stops the timer with the last stream', () => {
    vi.useFakeTimers();
    const channels = [new EventChannel(1_000), new EventChannel(1_000), new EventChannel(1_000)];
    for (const channel of channels) startHeartbeats(channel, HEARTBEAT_MS);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(HEARTBEAT_MS);
    const beat = Buffer.byteLength(': heartbeat\n\n');
    expect(channels.map(queuedChunks)).toEqual([beat, beat, beat]);
    stopHeartbeats(channels[0]!, HEARTBEAT_MS);
    stopHeartbeats(channels[1]!, HEARTBEAT_MS);
    expect(vi.getTimerCount()).toBe(1);
    stopHeartbeats(channels[2]!, HEARTBEAT_MS);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('ends every stream of one token at its exp from one timer; a released stream is not told', async () => {
    vi.useFakeTimers({ now: 0 });
    const sessions = new StreamSessions({
      limit: {
        kind: 'run_log',
        max: 10,
        streams: 'run-log streams',
        setting: 'RUN_LOG_MAX_STREAMS_PER_PRINCIPAL',
        reason: 'TooManyStreams',
      },
      adminSettings: {} as AdminSettingsSource,
      adminTokens: {} as AdminTokenAuthenticator,
    });
    const principal: OidcPrincipal = { type: 'oidc', name: 'oidc:ada', groups: [], claims: {}, expiresAt: 60_000 };
    const ends: Array<CredentialEnd['reason']> = [];
    const opened = await Promise.all([0, 1, 2].map(() => sessions.open(principal, 't')));
    for (const session of opened) session.onCredentialEnd((end) => ends.push(end.reason));
    expect(vi.getTimerCount()).toBe(1);
    opened[2]!.release();
    await vi.advanceTimersByTimeAsync(59_999);
    expect(ends).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(ends).toEqual(['TokenExpired', 'TokenExpired']);
    expect(vi.getTimerCount()).toBe(0);
  });
});
