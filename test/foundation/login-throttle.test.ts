// The login throttle on its own (spec: repeated failed logins from one client are throttled, 429
// with Retry-After): the count, the window, the wait it announces and the client it counts for.
// Times are passed in, so every boundary is exact. login.test.ts proves the 429 over HTTP.
import { describe, expect, it } from 'vitest';
import { LoginThrottle, clientAddress } from '../../shared/auth/login-throttle.ts';

const WINDOW_MS = 60_000;
const T0 = 1_000_000;

function throttleWithFailures(times: number[], client = 'a'): LoginThrottle {
  const throttle = new LoginThrottle({ maxFailures: 3, windowMs: WINDOW_MS });
  for (const at of times) throttle.recordFailure(client, at);
  return throttle;
}

describe('Repeated failed logins: after maxFailures inside the window, wait until the oldest leaves it', () => {
  it('lets a client try while it has fewer failures than the limit', () => {
    expect(throttleWithFailures([T0, T0 + 1]).retryAfterSeconds('a', T0 + 2)).toBe(0);
  });

  it('announces the whole seconds until the oldest failure leaves the window, rounded up', () => {
    const throttle = throttleWithFailures([T0, T0 + 1_000, T0 + 2_000]);
    expect(throttle.retryAfterSeconds('a', T0 + 2_000)).toBe(58);
    expect(throttle.retryAfterSeconds('a', T0 + 2_500)).toBe(58);
    expect(throttle.retryAfterSeconds('a', T0 + WINDOW_MS - 1_000)).toBe(1);
  });

  it('announces at least one second just before the window ends', () => {
    expect(throttleWithFailures([T0, T0, T0]).retryAfterSeconds('a', T0 + WINDOW_MS - 1)).toBe(1);
  });

  it('a failure exactly one window old no longer counts', () => {
    const throttle = throttleWithFailures([T0, T0 + 1_000, T0 + 2_000]);
    expect(throttle.retryAfterSeconds('a', T0 + WINDOW_MS)).toBe(0);
  });

  it('failures outside the window are forgotten when new ones are recorded', () => {
    const throttle = throttleWithFailures([T0, T0 + 1, T0 + WINDOW_MS + 10, T0 + WINDOW_MS + 20]);
    expect(throttle.retryAfterSeconds('a', T0 + WINDOW_MS + 20)).toBe(0);
    throttle.recordFailure('a', T0 + WINDOW_MS + 30);
    expect(throttle.retryAfterSeconds('a', T0 + WINDOW_MS + 30)).toBe(60);
  });

  it('keeps only the latest maxFailures failures: the wait runs from the oldest of those', () => {
    const throttle = throttleWithFailures([T0, T0 + 10_000, T0 + 20_000, T0 + 30_000]);
    expect(throttle.retryAfterSeconds('a', T0 + 30_000)).toBe(40);
  });

  it('counts per client, and a success clears only that client', () => {
    const throttle = throttleWithFailures([T0, T0, T0]);
    for (const at of [T0, T0, T0]) throttle.recordFailure('b', at);
    expect(throttle.retryAfterSeconds('c', T0)).toBe(0);
    throttle.recordSuccess('a');
    expect(throttle.retryAfterSeconds('a', T0)).toBe(0);
    expect(throttle.retryAfterSeconds('b', T0)).toBe(60);
  });

  it('defaults to 5 failures in 5 minutes', () => {
    const throttle = new LoginThrottle();
    for (let failure = 0; failure < 4; failure++) throttle.recordFailure('a', T0);
    expect(throttle.retryAfterSeconds('a', T0)).toBe(0);
    throttle.recordFailure('a', T0);
    expect(throttle.retryAfterSeconds('a', T0)).toBe(300);
  });
});

describe('The throttled client: the peer address, or behind TRUSTED_PROXY_HOPS proxies the address the outermost trusted proxy saw', () => {
  it.each([
    ['no trusted proxies: the peer, whatever X-Forwarded-For says', '10.0.0.9', '1.1.1.1', 0, '10.0.0.9'],
    ['no X-Forwarded-For', '10.0.0.9', undefined, 1, '10.0.0.9'],
    ['an empty X-Forwarded-For', '10.0.0.9', '', 1, '10.0.0.9'],
    ['one trusted proxy: the last address it appended', '10.0.0.9', '6.6.6.6, 1.1.1.1', 1, '1.1.1.1'],
    ['two trusted proxies: the second last', '10.0.0.9', '6.6.6.6, 1.1.1.1 ,10.0.0.1', 2, '1.1.1.1'],
    ['spaces and empty entries ignored', '10.0.0.9', ' 1.1.1.1 ,, ', 1, '1.1.1.1'],
    ['more trusted hops than addresses: the first address', '10.0.0.9', '1.1.1.1, 10.0.0.1', 5, '1.1.1.1'],
    ['only separators: the peer', '10.0.0.9', ' , ', 1, '10.0.0.9'],
  ] as const)('%s', (_case, remoteAddress, forwardedFor, trustedHops, expected) => {
    expect(clientAddress(remoteAddress, forwardedFor, trustedHops)).toBe(expected);
  });
});
