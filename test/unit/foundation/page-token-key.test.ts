// House review, smaller items (issue 43): the admin signing key was also the key of page tokens' MACs.
// Page tokens are keyed by a sub-key derived from it with HKDF (info "platform-api page tokens"), so the
// one secret does not serve two purposes under its own name: a MAC made with the signing key itself
// (or with the earlier HMAC-labelled key) is not a valid page token.
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidContinueTokenError, PageTokens } from '../../../shared/base/database/page-tokens.ts';

const SIGNING_KEY = randomBytes(32);
const QUERY = ['project-a', 'workspace-b'];
const POSITION = ['2026-01-02T03:04:05.678Z', '42'];
const ANY_FIELD = () => true;

/** A token for POSITION and QUERY with its MAC made under `key`, as PageTokens lays it out. */
function tokenUnder(key: Uint8Array): string {
  const payload = Buffer.from(JSON.stringify(POSITION)).toString('base64url');
  const mac = createHmac('sha256', key).update(JSON.stringify(QUERY)).update('\n').update(payload).digest();
  return `${payload}.${mac.subarray(0, 16).toString('base64url')}`;
}

describe('Issue 43 (house review, smaller items): page tokens are keyed by an HKDF sub-key of the signing key', () => {
  const tokens = new PageTokens(() => SIGNING_KEY);

  it('a token is the MAC under HKDF-SHA256(signing key, info "platform-api page tokens"), and reads back', () => {
    const subKey = Buffer.from(hkdfSync('sha256', SIGNING_KEY, Buffer.alloc(0), 'platform-api page tokens', 32));
    const issued = tokens.issue(QUERY, POSITION);
    expect(issued).toBe(tokenUnder(subKey));
    expect(tokens.read(QUERY, issued, [ANY_FIELD, ANY_FIELD])).toEqual(POSITION);
  });

  it('a MAC made with the signing key itself is not a page token (the key does not sign tokens under its own name)', () => {
    const raw = tokenUnder(SIGNING_KEY);
    expect(raw).not.toBe(tokens.issue(QUERY, POSITION));
    expect(() => tokens.read(QUERY, raw, [ANY_FIELD, ANY_FIELD])).toThrow(InvalidContinueTokenError);
  });

  it('a token keyed before the upgrade (HMAC of a label under the signing key) is refused once, as after a rotation', () => {
    const before = createHmac('sha256', SIGNING_KEY).update('platform-api continue tokens v1').digest();
    expect(() => tokens.read(QUERY, tokenUnder(before), [ANY_FIELD, ANY_FIELD])).toThrow(InvalidContinueTokenError);
  });
});
