// Issue 13: the real kubectl (1.33) against the platform in local mode over HTTPS, as the admin and as an OIDC
// user whose ServiceAccount has a namespaced Role in team-a only. kubeconfigs come from `platform-api kubeconfig`.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiException, CustomObjectsApi, KubeConfig, Watch } from '@kubernetes/client-node';
import { stringify as toYaml } from 'yaml';
import { ADMIN_PASSWORD } from '../../support/admin-fixtures.ts';
import {
  API,
  GROUP,
  OTHER_PROJECT,
  TEAM_PROJECT,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';
import { eventually, kubectlWith, platformKubeconfig, requireKubectl } from '../../support/kubectl-cli.ts';

const platform = usePlatform({}, { tls: true });
let home = '';
let admin: ReturnType<typeof kubectlWith>;
let alice: ReturnType<typeof kubectlWith>;

/** Writes a manifest file and returns its path. */
async function manifest(name: string, object: Record<string, unknown>): Promise<string> {
  const file = join(home, `${name}.yaml`);
  await writeFile(file, toYaml(object));
  return file;
}

function workspace(name: string, namespace: string, version = '1.8.2', path = 'network'): Record<string, unknown> {
  const object = workspaceObject(name) as {
    metadata: Record<string, unknown>;
    spec: { tool: Record<string, unknown>; source: Record<string, unknown> };
  };
  object.metadata = { name, namespace };
  object.spec.tool.version = version;
  object.spec.source.path = path;
  return object;
}

const stored = (namespace: string, name: string) =>
  platform().clusterAdmin.find<{
    spec: { tool: { version: string }; source: { path: string } };
    metadata: { managedFields?: { manager: string }[] };
  }>(`${API}/namespaces/${namespace}/workspaces/${name}`);

beforeAll(async () => {
  await requireKubectl();
  home = await mkdtemp(join(tmpdir(), 'kubectl-platform-'));
  const ca = join(home, 'ca.crt');
  await writeFile(ca, platform().caCertificate!);
  const server = platform().gateway.url;
  const adminConfig = join(home, 'admin.kubeconfig');
  const aliceConfig = join(home, 'alice.kubeconfig');
  const written = await platformKubeconfig(
    ['--server', server, '--certificate-authority', ca, '--kubeconfig', adminConfig],
    { input: `${ADMIN_PASSWORD}\n`, home },
  );
  expect(written.code, written.stderr).toBe(0);
  const oidc = await platformKubeconfig(
    [
      '--server',
      server,
      '--certificate-authority',
      ca,
      '--kubeconfig',
      aliceConfig,
      '--id-token',
      platform().tokens.oidcUser,
      '--namespace',
      TEAM_PROJECT,
    ],
    { home },
  );
  expect(oidc.code, oidc.stderr).toBe(0);
  admin = kubectlWith(adminConfig, home);
  alice = kubectlWith(aliceConfig, home);
});

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

describe("Discovery: kubectl finds the platform's kinds, and only those", () => {
  it('lists the kinds with their short names, scope and kind in api-resources', async () => {
    const lines = (await admin.ok(['api-resources', '--no-headers']))
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/));
    expect(lines).toEqual(
      expect.arrayContaining([
        ['projects', 'proj', `${GROUP}/v1alpha1`, 'false', 'Project'],
        ['workspaces', 'ws', `${GROUP}/v1alpha1`, 'true', 'Workspace'],
        ['variablesets', 'varset', `${GROUP}/v1alpha1`, 'true', 'VariableSet'],
        ['notifications', 'notif', `${GROUP}/v1alpha1`, 'true', 'Notification'],
        ['runtasks', 'rtask', `${GROUP}/v1alpha1`, 'true', 'RunTask'],
        ['rollouts', `${GROUP}/v1alpha1`, 'true', 'Rollout'],
      ]),
    );
    expect(lines.map((line) => line[0])).not.toContain('pods');
  });

  it('reports the server version', async () => {
    const version = JSON.parse(await admin.ok(['version', '-o', 'json'])) as {
      serverVersion: { major: string; minor: string };
    };
    expect(version.serverVersion).toMatchObject({ major: '1', minor: '33' });
  });

  it("resolves the category of the platform's kinds", async () => {
    const names = (await admin.ok(['get', 'platform', '-n', TEAM_PROJECT, '-o', 'name'])).trim().split('\n');
    expect(names.length).toBeGreaterThan(0);
  });
});

describe("kubectl apply creates and updates; get prints the CRD's columns; delete removes", () => {
  it('creates with apply -f, prints the printer columns, shows -o yaml, updates with apply -f, and deletes', async () => {
    const file = await manifest('web', workspace('web', TEAM_PROJECT));
    expect(await admin.ok(['apply', '-f', file])).toContain(`workspace.${GROUP}/web created`);
    expect((await stored(TEAM_PROJECT, 'web'))?.spec.tool.version).toBe('1.8.2');

    const table = await admin.ok(['get', 'ws', '-n', TEAM_PROJECT]);
    // Issue 44, item 15: the tool and its version each under a title that says what it is.
    expect(table.split('\n')[0]!.split(/\s{2,}/)).toEqual([
      'NAME',
      'REPOSITORY',
      'PATH',
      'TOOL',
      'TOOL VERSION',
      'PHASE',
      'AGE',
    ]);
    expect(table).toMatch(/web\s+https:\/\/git\.example\.com\/infra\.git\s+network\s+opentofu\s+1\.8\.2\s+\d+s/);
    const everywhere = await admin.ok(['get', 'ws', '-A']);
    expect(everywhere).toMatch(new RegExp(`^${TEAM_PROJECT}\\s+web\\s`, 'm'));

    const yaml = await admin.ok(['get', 'ws', 'web', '-n', TEAM_PROJECT, '-o', 'yaml']);
    expect(yaml).toContain('kind: Workspace');
    expect(yaml).toContain('version: 1.8.2');

    await writeFile(file, toYaml(workspace('web', TEAM_PROJECT, '1.9.0')));
    expect(await admin.ok(['apply', '-f', file])).toContain(`workspace.${GROUP}/web configured`);
    expect((await stored(TEAM_PROJECT, 'web'))?.spec.tool.version).toBe('1.9.0');

    expect(await admin.ok(['delete', 'ws', 'web', '-n', TEAM_PROJECT])).toContain(`workspace.${GROUP} "web" deleted`);
    expect(await stored(TEAM_PROJECT, 'web')).toBeUndefined();
  });

  it("says which object is not found, in kubectl's words", async () => {
    const missing = await admin.result(['get', 'ws', 'nothing-here', '-n', TEAM_PROJECT]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain(`workspaces.${GROUP} "nothing-here" not found`);
  });

  it('validates a server dry run and stores nothing', async () => {
    const file = await manifest('dry', workspace('dry', TEAM_PROJECT));
    expect(await admin.ok(['create', '-f', file, '--dry-run=server'])).toContain('created (server dry run)');
    expect(await stored(TEAM_PROJECT, 'dry')).toBeUndefined();
  });
});

describe("Server-side apply: the caller's field manager owns its fields; a conflict is 409 Conflict", () => {
  it("applies, refuses another manager's change as a conflict, and takes the field with --force-conflicts", async () => {
    const file = await manifest('ssa', workspace('ssa', TEAM_PROJECT));
    expect(await admin.ok(['apply', '--server-side', '-f', file])).toContain(
      `workspace.${GROUP}/ssa serverside-applied`,
    );
    expect((await stored(TEAM_PROJECT, 'ssa'))?.metadata.managedFields?.map((entry) => entry.manager)).toEqual([
      'kubectl',
    ]);

    await writeFile(file, toYaml(workspace('ssa', TEAM_PROJECT, '1.9.9')));
    const conflict = await admin.result(['apply', '--server-side', '--field-manager', 'other-tool', '-f', file]);
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain('conflict with "kubectl"');
    expect(conflict.stderr).toContain('.spec.tool.version');
    expect((await stored(TEAM_PROJECT, 'ssa'))?.spec.tool.version).toBe('1.8.2');

    expect(
      await admin.ok(['apply', '--server-side', '--field-manager', 'other-tool', '--force-conflicts', '-f', file]),
    ).toContain('serverside-applied');
    expect((await stored(TEAM_PROJECT, 'ssa'))?.spec.tool.version).toBe('1.9.9');
  });
});

describe('OpenAPI: kubectl explain reads the CRD schema', () => {
  it('explains workspace.spec with its fields and descriptions', async () => {
    const explained = await admin.ok(['explain', 'workspace.spec']);
    expect(explained).toContain('KIND:       Workspace');
    expect(explained).toMatch(/source\s+<Object> -required-/);
    expect(explained).toContain('Apply a successful plan without approval.');
  });
});

describe("Watch: get -w streams changes and ends when the caller's token expires", () => {
  it('shows a change made while watching, then exits 0 once the token has expired', async () => {
    await admin.ok(['apply', '-f', await manifest('watched', workspace('watched', TEAM_PROJECT))]);
    const shortLived = join(home, 'short.kubeconfig');
    const token = await platform().oidcLogin(12);
    const written = await platformKubeconfig(
      [
        '--server',
        platform().gateway.url,
        '--certificate-authority',
        join(home, 'ca.crt'),
        '--kubeconfig',
        shortLived,
        '--id-token',
        token,
      ],
      { home },
    );
    expect(written.code, written.stderr).toBe(0);
    const watch = kubectlWith(shortLived, home).start(['get', 'ws', '-n', TEAM_PROJECT, '-w']);
    await eventually(() => /watched\s/.test(watch.output()), watch.output);
    await admin.ok([
      'apply',
      '-f',
      await manifest('watched', workspace('watched', TEAM_PROJECT, '1.8.2', 'changed-path')),
    ]);
    await eventually(() => watch.output().includes('changed-path'), watch.output);
    const code = await Promise.race([
      watch.exited,
      new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 45_000)),
    ]);
    watch.kill();
    expect(code).toBe(0);
  });
});

describe("An OIDC user is authorized per request as their ServiceAccount's Role allows", () => {
  it('may list, apply, server-side apply and delete Workspaces in their own Project', async () => {
    const file = await manifest('alice-ws', workspace('alice-ws', TEAM_PROJECT));
    expect(await alice.ok(['apply', '-f', file])).toContain('created');
    expect(await alice.ok(['get', 'ws'])).toMatch(/alice-ws\s/);
    await writeFile(file, toYaml(workspace('alice-ws', TEAM_PROJECT, '1.9.0')));
    expect(await alice.ok(['apply', '--server-side', '--force-conflicts', '-f', file])).toContain('serverside-applied');
    expect((await stored(TEAM_PROJECT, 'alice-ws'))?.spec.tool.version).toBe('1.9.0');
    expect(await alice.ok(['delete', 'ws', 'alice-ws'])).toContain('deleted');
  });

  it("gets kubectl's Forbidden for another Project and for Projects, and nothing changes", async () => {
    const listing = await alice.result(['get', 'ws', '-n', OTHER_PROJECT]);
    expect(listing.code).not.toBe(0);
    expect(listing.stderr).toContain('Error from server (Forbidden)');

    const file = await manifest('intruder', workspace('intruder', OTHER_PROJECT));
    for (const args of [
      ['apply', '-f', file],
      ['apply', '--server-side', '-f', file],
      ['create', '-f', file],
    ]) {
      const refused = await alice.result(args);
      expect(refused.code, args.join(' ')).not.toBe(0);
      expect(refused.stderr).toContain('Error from server (Forbidden)');
    }
    expect(await stored(OTHER_PROJECT, 'intruder')).toBeUndefined();

    const deletion = await alice.result(['delete', 'project', TEAM_PROJECT]);
    expect(deletion.stderr).toContain('Error from server (Forbidden)');
    expect(await platform().clusterAdmin.find(`${API}/projects/${TEAM_PROJECT}`)).toBeDefined();
  });

  it('gets Forbidden when watching another Project', async () => {
    const watching = await alice.result(['get', 'ws', '-n', OTHER_PROJECT, '-w', '--request-timeout=20s']);
    expect(watching.code).not.toBe(0);
    expect(watching.stderr).toContain('Error from server (Forbidden)');
  });
});

describe('@kubernetes/client-node pointed at the server lists, watches and creates', () => {
  const clientConfig = (token: string): KubeConfig => {
    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [
        {
          name: 'platform',
          server: platform().gateway.url,
          caData: Buffer.from(platform().caCertificate!).toString('base64'),
          skipTLSVerify: false,
        },
      ],
      users: [{ name: 'alice', token }],
      contexts: [{ name: 'platform', cluster: 'platform', user: 'alice' }],
      currentContext: 'platform',
    });
    return config;
  };
  const coordinates = { group: GROUP, version: 'v1alpha1', namespace: TEAM_PROJECT, plural: 'workspaces' };

  it('creates a Workspace that a running watch reports, and lists it', async () => {
    const config = clientConfig(platform().tokens.oidcUser);
    const api = config.makeApiClient(CustomObjectsApi);
    const seen: { type: string; name: string }[] = [];
    const ended = new Promise<unknown>((resolve) => {
      void new Watch(config)
        .watch(
          `${API}/namespaces/${TEAM_PROJECT}/workspaces`,
          {},
          (type, object: { metadata: { name: string } }) => seen.push({ type, name: object.metadata.name }),
          resolve,
        )
        .then((request) =>
          eventually(
            () => seen.some((event) => event.name === 'from-client-node'),
            () => JSON.stringify(seen),
          ).finally(() => request.abort()),
        );
    });
    await api.createNamespacedCustomObject({ ...coordinates, body: workspace('from-client-node', TEAM_PROJECT) });
    await ended;
    expect(seen).toContainEqual({ type: 'ADDED', name: 'from-client-node' });
    const list = (await api.listNamespacedCustomObject(coordinates)) as { items: { metadata: { name: string } }[] };
    expect(list.items.map((item) => item.metadata.name)).toContain('from-client-node');
  });

  it('is refused with the Forbidden Status where the Role does not reach', async () => {
    const api = clientConfig(platform().tokens.oidcUser).makeApiClient(CustomObjectsApi);
    const refused = await api
      .createNamespacedCustomObject({
        ...coordinates,
        namespace: OTHER_PROJECT,
        body: workspace('refused', OTHER_PROJECT),
      })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiException);
    expect((refused as ApiException<unknown>).code).toBe(403);
    expect(await stored(OTHER_PROJECT, 'refused')).toBeUndefined();
  });
});

describe('kubectl auth can-i asks this server, which answers with the authorizer its routes use (issue 24, item 5)', () => {
  /** `kubectl auth can-i`: exit 0 and "yes", or exit 1 and "no" (kubectl adds " - <the reason>"). */
  async function canI(who: ReturnType<typeof kubectlWith>, args: string[]): Promise<string> {
    const answer = await who.result(['auth', 'can-i', ...args]);
    const [word] = answer.stdout.trim().split(' ');
    expect(answer.code, answer.stderr).toBe(word === 'yes' ? 0 : 1);
    return word!;
  }

  it('the admin may do anything, by the bypass', async () => {
    expect(await canI(admin, ['delete', 'projects'])).toBe('yes');
    expect(await canI(admin, ['create', 'workspaces', '-n', OTHER_PROJECT])).toBe('yes');
  });

  it("an OIDC user gets its mapped ServiceAccount's Role: Workspaces in team-a, nothing in team-b, no Projects", async () => {
    expect(await canI(alice, ['create', 'workspaces', '-n', TEAM_PROJECT])).toBe('yes');
    expect(await canI(alice, ['create', 'workspaces', '-n', OTHER_PROJECT])).toBe('no');
    expect(await canI(alice, ['delete', 'projects'])).toBe('no');
    const refused = await alice.result(['auth', 'can-i', 'create', 'workspaces', '-n', OTHER_PROJECT]);
    expect(refused.stdout).toContain('as ServiceAccount');
  });

  it('a path the server routes is answered as its route is authorized, not by system:discovery (issue 38 item 3)', async () => {
    expect(await canI(alice, ['get', '/api/v1alpha1/audit/events'])).toBe('no');
    expect(await canI(alice, ['get', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs`])).toBe('yes');
    expect(await canI(alice, ['get', `/api/v1alpha1/projects/${OTHER_PROJECT}/runs`])).toBe('no');
    expect(await canI(admin, ['get', '/api/v1alpha1/audit/events'])).toBe('yes');
    expect(await alice.ok(['auth', 'can-i', '--list', '-n', TEAM_PROJECT])).not.toMatch(/\/api\/\*/);
  });

  it("--list prints the rules of the OIDC user's ServiceAccount in the namespace", async () => {
    const listed = await alice.ok(['auth', 'can-i', '--list', '-n', TEAM_PROJECT]);
    expect(listed).toMatch(new RegExp(`workspaces\\.${GROUP.replace('.', '\\.')}\\s.*\\[\\*\\]`));
    expect(await alice.ok(['auth', 'can-i', '--list', '-n', OTHER_PROJECT])).not.toMatch(/workspaces/);
  });

  it('agrees with what the server then does: a "no" is a 403, a "yes" gets past authorization', async () => {
    expect(await canI(alice, ['list', 'workspaces', '-n', OTHER_PROJECT])).toBe('no');
    const refused = await alice.result(['get', 'workspaces', '-n', OTHER_PROJECT]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/forbidden/i);
    expect(await canI(alice, ['list', 'workspaces', '-n', TEAM_PROJECT])).toBe('yes');
    expect((await alice.result(['get', 'workspaces', '-n', TEAM_PROJECT])).code).toBe(0);
  });
});
