// Issue 44, item 11: a namespaced list takes its namespace from the path only. `?namespace=` in the
// query is refused with 400 on every namespaced list route (a list honouring it would read another
// namespace than the one authorized, which the authorizing client turns into a 500), never a 500.
import { beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '../../../shared/contract/routes/route-table.ts';
import {
  API,
  GROUP,
  MAPPED_ACCOUNT,
  OTHER_PROJECT,
  TEAM_PROJECT,
  bindRole,
  callAs,
  expectStatus,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const platform = usePlatform();

const WORKSPACE = 'query-namespace-ws';
/** Path parameters below the namespace: valid values (a run that exists, set below), so what is refused is the query alone. */
const OTHER_PATH_VALUES: Record<string, string> = {
  workspace: 'any-workspace',
  run: '',
  notification: 'any-notification',
};
/** The list's path with every parameter given its value; read when the test runs (the run exists only then). */
const pathOf = (template: string) =>
  template.replace(/\{([a-zA-Z]+)\}/g, (_, name: string) => OTHER_PATH_VALUES[name]!);

/** Every list route whose path names a namespace (`{namespace}`, or `{project}`, a Project's namespace). */
const NAMESPACED_LISTS = routeTable(GROUP)
  .filter((route) => route.method === 'GET' && route.operationId.startsWith('list'))
  .filter((route) => /\{(namespace|project)\}/.test(route.path))
  .map(
    (route) =>
      [
        route.operationId,
        route.path.replace(/\{(namespace|project)\}/, TEAM_PROJECT),
        route.statusErrors === true,
      ] as const,
  );

beforeAll(async () => {
  // The user's Role in its Project reaches the kinds and lists the fixture's developer Role does not
  // (Notifications, RunTasks, Project tokens), so what refuses the query is the query, not a 403.
  await bindRole(
    platform().cluster,
    TEAM_PROJECT,
    'query-namespace-lists',
    [{ apiGroups: [GROUP], resources: ['notifications', 'runtasks', 'tokens'], verbs: ['get', 'list', 'watch'] }],
    MAPPED_ACCOUNT,
  );
  // A run's task results are authorized by the run's Workspace: the run must exist to get past authorization.
  const { gateway, tokens } = platform();
  await send(
    gateway.url,
    tokens.admin,
    'POST',
    `${API}/namespaces/${TEAM_PROJECT}/workspaces`,
    workspaceObject(WORKSPACE),
  ).then(expectStatus(201));
  OTHER_PATH_VALUES.run = (
    await send(
      gateway.url,
      tokens.admin,
      'POST',
      `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/${WORKSPACE}/runs`,
      {
        type: 'plan',
      },
    ).then(expectStatus(201))
  ).id;
});

describe('Issue 44, item 11: ?namespace= on a namespaced list is a 400, never a 500', () => {
  it('covers the namespaced lists of the route table: Workspaces, Rollouts, VariableSets, runs, Notifications and their deliveries, RunTasks and task results, Project tokens', () => {
    expect(NAMESPACED_LISTS.map(([operationId]) => operationId).sort()).toEqual([
      'listNotificationDeliveries',
      'listNotifications',
      'listProjectRuns',
      'listProjectTokens',
      'listRollouts',
      'listRunTaskResults',
      'listRunTasks',
      'listVariableSets',
      'listWorkspaceRuns',
      'listWorkspaces',
    ]);
  });

  describe.each(NAMESPACED_LISTS)('%s', (_operationId, template, kubernetesStyle) => {
    it.each<[string, string]>([
      ['another namespace', `namespace=${OTHER_PROJECT}`],
      ['the same namespace', `namespace=${TEAM_PROJECT}`],
      ['an empty one', 'namespace='],
      ['another namespace, twice', `namespace=${OTHER_PROJECT}&namespace=${OTHER_PROJECT}`],
      ...(kubernetesStyle ? [['with watch', `watch=1&namespace=${OTHER_PROJECT}`] as [string, string]] : []),
    ])('%s: 400 naming the parameter, for the admin and for a user with a Role there', async (_case, query) => {
      for (const who of ['admin', 'oidcUser'] as const) {
        const response = await callAs(platform, who)('GET', `${pathOf(template)}?${query}`);
        const body = await response.json();
        expect(response.status, `${who} ${query}`).toBe(400);
        if (kubernetesStyle) expect(body).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest' });
        else expect(body).toMatchObject({ reason: 'BadRequest' });
        expect(JSON.stringify(body)).toContain('namespace');
      }
    });
  });
});
