// Issue 44, item 11: a namespaced list takes its namespace from the path only. `?namespace=` in the
// query is refused with 400 on every namespaced list route (a list honouring it would read another
// namespace than the one authorized, which the authorizing client turns into a 500), never a 500.
import { describe, expect, it } from 'vitest';
import { routeTable } from '../../../shared/contract/routes/route-table.ts';
import { GROUP, OTHER_PROJECT, TEAM_PROJECT, callAs, usePlatform } from '../../support/platform-fixture.ts';

const platform = usePlatform();

/** Every list route whose path names a namespace (`{namespace}`, or `{project}`, a Project's namespace). */
const NAMESPACED_LISTS = routeTable(GROUP)
  .filter((route) => route.method === 'GET' && route.operationId.startsWith('list'))
  .filter((route) => /\{(namespace|project)\}/.test(route.path))
  .map(
    (route) =>
      [
        route.operationId,
        route.path.replace(/\{(namespace|project)\}/, TEAM_PROJECT).replace('{workspace}', 'any-workspace'),
        route.statusErrors === true,
      ] as const,
  );

describe('Issue 44, item 11: ?namespace= on a namespaced list is a 400, never a 500', () => {
  it('covers the namespaced lists of the route table: Workspaces, Rollouts, VariableSets and runs', () => {
    expect(NAMESPACED_LISTS.map(([operationId]) => operationId).sort()).toEqual([
      'listProjectRuns',
      'listRollouts',
      'listVariableSets',
      'listWorkspaceRuns',
      'listWorkspaces',
    ]);
  });

  describe.each(NAMESPACED_LISTS)('%s', (_operationId, path, kubernetesStyle) => {
    it.each<[string, string]>([
      ['another namespace', `namespace=${OTHER_PROJECT}`],
      ['the same namespace', `namespace=${TEAM_PROJECT}`],
      ['an empty one', 'namespace='],
      ['another namespace, twice', `namespace=${OTHER_PROJECT}&namespace=${OTHER_PROJECT}`],
      ...(kubernetesStyle ? [['with watch', `watch=1&namespace=${OTHER_PROJECT}`] as [string, string]] : []),
    ])('%s: 400 naming the parameter, for the admin and for a user with a Role there', async (_case, query) => {
      for (const who of ['admin', 'oidcUser'] as const) {
        const response = await callAs(platform, who)('GET', `${path}?${query}`);
        const body = await response.json();
        expect(response.status, `${who} ${query}`).toBe(400);
        if (kubernetesStyle) expect(body).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest' });
        else expect(body).toMatchObject({ reason: 'BadRequest' });
        expect(JSON.stringify(body)).toContain('namespace');
      }
    });
  });
});
