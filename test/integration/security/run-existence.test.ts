// Issue 44, item 9: a caller without rights on a run's Workspace learns nothing from a run id: the
// refusal for a run that exists is the refusal for one that does not, on every route that takes a run id.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  API,
  OTHER_PROJECT,
  callAs,
  expectStatus,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const platform = usePlatform();
const asAdmin = callAs(platform, 'admin');
/** The OIDC user has no Role in OTHER_PROJECT. */
const asOutsider = callAs(platform, 'oidcUser');

/** What a caller can see of an answer: status, body and every header but the per-request ones. */
async function seen(response: Response): Promise<{ status: number; headers: string[][]; body: string }> {
  const body = await response.text();
  const headers = [...response.headers].filter(([name]) => !['audit-id', 'date'].includes(name));
  return { status: response.status, headers, body };
}

const ROUTES: Array<[route: string, method: string, path: (run: string) => string, body?: unknown]> = [
  ['get a run', 'GET', (run) => `/api/v1alpha1/projects/${OTHER_PROJECT}/runs/${run}`],
  ['cancel a run', 'POST', (run) => `/api/v1alpha1/projects/${OTHER_PROJECT}/runs/${run}/cancel`, {}],
  ['apply a plan', 'POST', (run) => `/api/v1alpha1/projects/${OTHER_PROJECT}/runs/${run}/apply`, {}],
  ['stream a run log', 'GET', (run) => `/api/v1alpha1/run-logs/${OTHER_PROJECT}/${run}`],
];

describe('Issue 44, item 9: a 403 for a run id is the same whether the run exists or not', () => {
  it.each(ROUTES)(
    '%s: same status, reason, message and headers for an existing run and an unknown id',
    async (_route, method, path, body) => {
      const workspace = 'hidden-runs';
      if ((await asAdmin('GET', `${API}/namespaces/${OTHER_PROJECT}/workspaces/${workspace}`)).status === 404)
        await asAdmin('POST', `${API}/namespaces/${OTHER_PROJECT}/workspaces`, workspaceObject(workspace)).then(
          expectStatus(201),
        );
      const run = await asAdmin('POST', `/api/v1alpha1/projects/${OTHER_PROJECT}/workspaces/${workspace}/runs`, {
        type: 'plan',
      }).then(expectStatus(201));

      const existing = await seen(await asOutsider(method, path(run.id), body));
      const unknown = await seen(await asOutsider(method, path(randomUUID()), body));
      expect(existing.status).toBe(403);
      expect(existing.body).not.toContain(workspace);
      expect(existing).toEqual(unknown);
    },
  );
});
