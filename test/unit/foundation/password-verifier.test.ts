// The admin password check on its own (spec: login compares with the bcrypt hash; a bounded queue
// answers "busy" rather than queueing unbounded CPU work). login.test.ts proves it over HTTP.
import { afterEach, describe, expect, it } from 'vitest';
import { PasswordVerifier } from '../../../shared/auth/password-verifier.ts';
import { ADMIN_PASSWORD, adminHash } from '../../support/admin-fixtures.ts';

/** ADMIN_PASSWORD at bcrypt cost 14 (seconds to compare), so a comparison is still running when the worker is stopped. */
const SLOW_HASH = '$2b$14$nEKxjtX6xdTx32Qxj6QDt.Qf6BtSv4zD4AkefFCnHwdbH2C/HF4vu';

const verifiers: PasswordVerifier[] = [];
afterEach(async () => {
  await Promise.all(verifiers.splice(0).map((verifier) => verifier.close()));
});

function verifier(maxQueued?: number): PasswordVerifier {
  const created = new PasswordVerifier(maxQueued);
  verifiers.push(created);
  return created;
}

describe('Passwords are compared with the bcrypt hash on a worker thread', () => {
  it('true for the right password, false for a wrong one, in the order asked', async () => {
    const passwords = verifier();
    const hash = adminHash();
    expect(
      await Promise.all([
        passwords.compare(ADMIN_PASSWORD, hash),
        passwords.compare('wrong', hash),
        passwords.compare(ADMIN_PASSWORD, hash),
      ]),
    ).toEqual([true, false, true]);
  });

  it('starts a new worker after the previous one is gone', async () => {
    const passwords = verifier();
    expect(await passwords.compare(ADMIN_PASSWORD, adminHash())).toBe(true);
    await passwords.close();
    expect(await passwords.compare(ADMIN_PASSWORD, adminHash())).toBe(true);
  });
});

describe('Comparisons pending when the worker ends are answered "no match", never "match"', () => {
  it('answers false for the right password when the worker is terminated mid-comparison', async () => {
    const passwords = verifier();
    const pending = passwords.compare(ADMIN_PASSWORD, SLOW_HASH);
    await passwords.close();
    expect(await pending).toBe(false);
  });

  it('those answered comparisons no longer count against the queue: the next one is compared, not "busy"', async () => {
    const passwords = verifier(1);
    const pending = passwords.compare(ADMIN_PASSWORD, SLOW_HASH);
    await passwords.close();
    expect(await pending).toBe(false);
    expect(await passwords.compare(ADMIN_PASSWORD, adminHash())).toBe(true);
  });
});

describe('The queue of comparisons is bounded: beyond it, "busy" at once', () => {
  it('answers busy for the comparison beyond maxQueued, and the queued ones normally', async () => {
    const passwords = verifier(2);
    const hash = adminHash();
    const first = passwords.compare(ADMIN_PASSWORD, hash);
    const second = passwords.compare('wrong', hash);
    expect(await passwords.compare(ADMIN_PASSWORD, hash)).toBe('busy');
    expect([await first, await second]).toEqual([true, false]);
    expect(await passwords.compare(ADMIN_PASSWORD, hash)).toBe(true);
  });
});
