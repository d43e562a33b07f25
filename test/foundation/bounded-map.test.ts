import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../shared/caching/bounded-map.ts';
import { LoginThrottle } from '../../shared/auth/login-throttle.ts';

describe('Caches and throttles keyed by client input are bounded', () => {
  it('drops the oldest key when a new one arrives at the limit, and never for a key already held', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('a', 3);
    expect([...map.keys()]).toEqual(['a', 'b']);
    map.set('c', 4);
    expect([...map.entries()]).toEqual([
      ['b', 2],
      ['c', 4],
    ]);
  });

  it('the login throttle forgets the least recently failing client first', () => {
    const throttle = new LoginThrottle({ maxFailures: 1, maxClients: 2 });
    throttle.recordFailure('first', 1000);
    throttle.recordFailure('second', 1000);
    throttle.recordFailure('first', 1000);
    throttle.recordFailure('third', 1000);
    expect(throttle.retryAfterSeconds('first', 1000)).toBeGreaterThan(0);
    expect(throttle.retryAfterSeconds('second', 1000)).toBe(0);
    expect(throttle.retryAfterSeconds('third', 1000)).toBeGreaterThan(0);
  });
});
