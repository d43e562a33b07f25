// Issue 20, item 5: each watch holds a cluster watch under the server's own credentials, so watches
// count against a per-principal cap (MAX_WATCHES_PER_PRINCIPAL), like run-log streams: one more is
// 429 `TooManyWatches` with Retry-After, and closing one frees its slot.
import { describe, expect, it } from 'vitest';
import { API, TEAM_PROJECT, expectStatus, send, usePlatform, workspaceObject } from '../resources/platform-fixture.ts';
import { useAdminKubectl } from './kubectl-cli.ts';

const MAX_WATCHES = 2;
const platform = usePlatform({ MAX_WATCHES_PER_PRINCIPAL: String(MAX_WATCHES) }, { tls: true });
const admin = useAdminKubectl(platform);
const WATCH_PATH = `${API}/namespaces/${TEAM_PROJECT}/workspaces?watch=true`;
const BOUND_MS = 20_000;

const openWatch = (token: string) =>
  fetch(`${platform().gateway.url}${WATCH_PATH}`, { headers: { authorization: `Bearer ${token}` } });

/** Opens a watch again every 50 ms until it is not refused (bounded). */
async function openOnceFreed(token: string): Promise<Response> {
  const deadline = Date.now() + BOUND_MS;
  for (;;) {
    const response = await openWatch(token);
    if (response.status !== 429 || Date.now() > deadline) return response;
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('Issue 20: watches count against MAX_WATCHES_PER_PRINCIPAL per principal, like run-log streams', () => {
  it('refuses the cap+1-th watch of a principal with 429 TooManyWatches and Retry-After, lets another principal in, and frees a slot when one closes', async () => {
    const token = platform().tokens.admin;
    const open = await Promise.all(Array.from({ length: MAX_WATCHES }, () => openWatch(token)));
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

  it('a watch the cluster refuses after the chain allowed it frees its slot at once: cap+1 refused watches, then one is admitted', async () => {
    const token = platform().tokens.admin;
    for (let attempt = 0; attempt <= MAX_WATCHES; attempt++) {
      const refused = await fetch(
        `${platform().gateway.url}${WATCH_PATH}&labelSelector=${encodeURIComponent('a in (')}`,
        {
          headers: { authorization: `Bearer ${token}` },
        },
      );
      expect(refused.status).toBe(400);
      await refused.body?.cancel();
    }
    const admitted = await openWatch(token);
    expect(admitted.status).toBe(200);
    await admitted.body!.cancel();
  });

  it('kubectl get -w past the cap keeps waiting (client-go honours Retry-After) and watches once a slot is free', async () => {
    const create = (name: string) =>
      send(
        platform().gateway.url,
        platform().tokens.admin,
        'POST',
        `${API}/namespaces/${TEAM_PROJECT}/workspaces`,
        workspaceObject(name),
      ).then(expectStatus(201));
    const shows = async (name: string, output: () => string) => {
      const deadline = Date.now() + BOUND_MS;
      while (!new RegExp(`${name}\\s`).test(output()) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      return output();
    };
    await create('listed');
    const held = await Promise.all(Array.from({ length: MAX_WATCHES }, () => openWatch(platform().tokens.admin)));
    for (const response of held) expect(response.status).toBe(200);
    const watch = admin().start(['get', 'ws', '-n', TEAM_PROJECT, '-w']);
    let exited: number | undefined;
    void watch.exited.then((code) => (exited = code));
    try {
      // The list is not a watch: it answers; the watch after it is refused and retried, not given up.
      expect(await shows('listed', watch.output)).toMatch(/listed\s/);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(exited).toBeUndefined();
      await held[0]!.body!.cancel();
      await create('watched-later');
      expect(await shows('watched-later', watch.output)).toMatch(/watched-later\s/);
    } finally {
      watch.kill();
      await held[1]!.body!.cancel();
    }
  });
});
