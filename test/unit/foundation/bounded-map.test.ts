import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../../shared/base/caching/bounded-map.ts';
import { ProcessLoginFailures } from '../../../shared/auth/process-login-failures.ts';
import { loginKeys } from '../../../shared/auth/login-failure-store.ts';

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

  it('the login throttle is bounded without forgetting anyone: a full table refuses a new client instead of dropping a throttled one (issue 36)', async () => {
    const store = new ProcessLoginFailures({ maxClients: 2 });
    const limits = { windowMs: 60_000, accountMax: 100, clientMax: 1 };
    const attempt = (client: string) => store.admit(loginKeys('admin', client), limits, 1000);
    expect((await attempt('first')).admitted).toBe(true);
    expect((await attempt('second')).admitted).toBe(true);
    expect(await attempt('third')).toMatchObject({ admitted: false, refusedBy: 'client' });
    expect(await attempt('first')).toMatchObject({ admitted: false, refusedBy: 'client' });
    expect(store.size).toBe(3);
  });
});
