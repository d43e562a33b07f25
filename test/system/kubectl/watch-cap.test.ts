// Issue 20, item 5, with the real kubectl: past MAX_WATCHES_PER_PRINCIPAL, `kubectl get -w` waits (client-go
// honours Retry-After) and watches once a slot is free. The cap over HTTP: test/integration/resources/watch-cap-http.test.ts.
import { describe, expect, it } from 'vitest';
import { API, TEAM_PROJECT, expectStatus, send, usePlatform, workspaceObject } from '../../support/platform-fixture.ts';
import { useAdminKubectl } from '../../support/kubectl-cli.ts';
import { capturingLogger } from '../../support/function-servers.ts';
import { watchOpener } from '../../support/watch-opener.ts';

const MAX_WATCHES = 2;
const logger = capturingLogger();
const platform = usePlatform({ MAX_WATCHES_PER_PRINCIPAL: String(MAX_WATCHES) }, { tls: true, logger });
/** Whether the access log has a watch of workspaces answered 429 (kubectl's, past the cap). */
const watchRefused = () =>
  logger.lines.some((line) => {
    const entry = JSON.parse(line) as { message?: string; status?: number; path?: string };
    return entry.message === 'request' && entry.status === 429 && /workspaces\?.*watch/.test(entry.path ?? '');
  });
const admin = useAdminKubectl(platform);
const BOUND_MS = 20_000;
const { openWatch } = watchOpener(platform, BOUND_MS);

describe('Issue 20: kubectl and the watch cap', () => {
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
      // Its watch was refused (awaited in the access log, not for a fixed time): it is still running.
      await expect.poll(watchRefused, { timeout: BOUND_MS }).toBe(true);
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
