// Issue 20, item 5: each watch holds a cluster watch under the server's own credentials, so watches
// count against a per-principal cap (MAX_WATCHES_PER_PRINCIPAL), like run-log streams: one more is
// 429 `TooManyWatches` with Retry-After, and a watch frees its slot when it ends or the cluster refuses it.
import { describe, expect, it } from 'vitest';
import { usePlatform } from '../../support/platform-fixture.ts';
import { watchOpener } from '../../support/watch-opener.ts';

const MAX_WATCHES = 2;
const platform = usePlatform({ MAX_WATCHES_PER_PRINCIPAL: String(MAX_WATCHES) });
const { openWatch, openOnceFreed } = watchOpener(platform);
// The refusal test comes first: it needs every slot free.

describe('Issue 20: watches count against MAX_WATCHES_PER_PRINCIPAL per principal, like run-log streams', () => {
  it('a watch the cluster refuses after the chain allowed it frees its slot at once: cap+1 refused watches, then one is admitted', async () => {
    const token = platform().tokens.admin;
    for (let attempt = 0; attempt <= MAX_WATCHES; attempt++) {
      const refused = await openWatch(token, `&labelSelector=${encodeURIComponent('a in (')}`);
      expect(refused.status).toBe(400);
      await refused.body?.cancel();
    }
    const admitted = await openWatch(token);
    expect(admitted.status).toBe(200);
    await admitted.body!.cancel();
  });

  it('refuses the cap+1-th watch of a principal with 429 TooManyWatches and Retry-After, lets another principal in, and frees a slot when one closes', async () => {
    const token = platform().tokens.admin;
    // Sequentially, each once a slot is free: the watch the test before closed frees its slot when the server sees it end.
    const open: Response[] = [];
    for (let index = 0; index < MAX_WATCHES; index++) open.push(await openOnceFreed(token));
    for (const response of open) expect(response.status).toBe(200);

    const refused = await openWatch(token);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toMatchObject({
      reason: 'TooManyWatches',
      error: expect.stringContaining(`at most ${MAX_WATCHES} watches`),
    });
    // The cap is per principal: the OIDC user (a developer of the Project) still gets its own.
    const otherPrincipal = await openWatch(platform().tokens.oidcUser);
    expect(otherPrincipal.status).toBe(200);

    await open[0]!.body!.cancel();
    const freed = await openOnceFreed(token);
    expect(freed.status).toBe(200);
    for (const response of [open[1]!, freed, otherPrincipal]) await response.body!.cancel();
  });
});
