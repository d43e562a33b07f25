// Issue 20, Found 1 and Build 2: a dry run changes nothing anywhere. kubectl 1.33 sends a delete's dry run in the
// body (DeleteOptions), not in the query; the server's own follow-up writes (a Project's namespace, a VariableSet's
// Secret) are dry runs too. Every DeleteOptions field takes effect on the cluster or is a 400 naming it.
import { describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import type { RecordedRequest } from '../../../infra/kube-emulator/index.ts';
import {
  API,
  TEAM_PROJECT,
  expectStatus,
  projectObject,
  rolloutObject,
  send,
  usePlatform,
  variableSetObject,
  workspaceObject,
} from '../../support/platform-fixture.ts';
import { useAdminKubectl } from '../../support/kubectl-cli.ts';

const platform = usePlatform({}, { tls: true });
const admin = useAdminKubectl(platform);

const DRY_RUN_BODY = { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'], propagationPolicy: 'Background' };
const SENSITIVE = 'dry-run-sensitive-value';
const namespaced = (plural: string) => `${API}/namespaces/${TEAM_PROJECT}/${plural}`;

/** One object of each kind, with everything the server wrote for it besides the object. */
interface Fixture {
  kubectlKind: string;
  path: string;
  /** The object and what goes with it (namespace, Secret), each of which must survive a dry run. */
  kept: string[];
}

/** Creates a Project (its namespace), a Workspace, a Rollout and a VariableSet (its Secret), named after `tag`. */
async function createOneOfEach(tag: string): Promise<Fixture[]> {
  const { url } = platform().gateway;
  const token = platform().tokens.admin;
  const project = `dry-${tag}`;
  await send(url, token, 'POST', `${API}/projects`, projectObject(project)).then(expectStatus(201));
  await send(url, token, 'POST', namespaced('workspaces'), workspaceObject(`ws-${tag}`)).then(expectStatus(201));
  await send(url, token, 'POST', namespaced('rollouts'), rolloutObject(`ro-${tag}`, [`ws-${tag}`])).then(
    expectStatus(201),
  );
  const variables = [{ name: 'password', sensitive: true, value: SENSITIVE }];
  await send(url, token, 'POST', namespaced('variablesets'), variableSetObject(`vs-${tag}`, variables)).then(
    expectStatus(201),
  );
  const secret = `/api/v1/namespaces/${TEAM_PROJECT}/secrets/variableset-vs-${tag}`;
  expect(await platform().clusterAdmin.find(secret)).toBeDefined();
  return [
    { kubectlKind: 'project', path: `${API}/projects/${project}`, kept: [`/api/v1/namespaces/${project}`] },
    { kubectlKind: 'workspace', path: `${namespaced('workspaces')}/ws-${tag}`, kept: [] },
    { kubectlKind: 'rollout', path: `${namespaced('rollouts')}/ro-${tag}`, kept: [] },
    { kubectlKind: 'variableset', path: `${namespaced('variablesets')}/vs-${tag}`, kept: [secret] },
  ];
}

async function expectAllInPlace(fixtures: Fixture[]): Promise<void> {
  for (const path of fixtures.flatMap((fixture) => [fixture.path, ...fixture.kept])) {
    const found = await platform().clusterAdmin.find<{ metadata: { deletionTimestamp?: string } }>(path);
    expect(found, path).toBeDefined();
    expect(found!.metadata.deletionTimestamp, path).toBeUndefined();
  }
}

// The cluster's own reading of a dry run: a delete with a body reads its DeleteOptions, anything else the query.
function isDryRun(request: RecordedRequest): boolean {
  if (request.method === 'DELETE' && request.body.trim() !== '')
    return (JSON.parse(request.body) as { dryRun?: string[] }).dryRun?.includes('All') === true;
  return new URL(request.rawUrl, 'http://cluster').searchParams.get('dryRun') === 'All';
}

const REVIEWS = new Set(['tokenreviews', 'subjectaccessreviews', 'selfsubjectreviews']);

/** Runs `work` and returns every write the cluster received meanwhile (the server's; the test only reads). */
async function writesDuring(work: () => Promise<unknown>): Promise<RecordedRequest[]> {
  const recorded: RecordedRequest[] = [];
  const stop = platform().cluster.emulator.observeRequests((request) => recorded.push(request));
  try {
    await work();
  } finally {
    stop();
  }
  return recorded.filter((request) => request.method !== 'GET' && !REVIEWS.has(request.info.resource));
}

function deleteWith(path: string, body: unknown, contentType = 'application/json'): Promise<Response> {
  return send(platform().gateway.url, platform().tokens.admin, 'DELETE', path, body, contentType);
}

describe('issue 20: a server-side dry-run delete changes nothing anywhere', () => {
  it('issue 20: kubectl delete --dry-run=server of every kind leaves every object, Secret and namespace in place', async () => {
    const fixtures = await createOneOfEach('kubectl');
    for (const fixture of fixtures) {
      const name = fixture.path.split('/').pop()!;
      const args = ['delete', fixture.kubectlKind, name, '--dry-run=server'];
      if (fixture.kubectlKind !== 'project') args.push('-n', TEAM_PROJECT);
      let output = '';
      const writes = await writesDuring(async () => (output = await admin().ok(args)));
      expect(output).toContain('deleted (server dry run)');
      expect(writes.length, fixture.kubectlKind).toBeGreaterThan(0);
      for (const write of writes) expect(isDryRun(write), `${write.method} ${write.rawUrl} ${write.body}`).toBe(true);
    }
    await expectAllInPlace(fixtures);
  });

  it('issue 20: a DeleteOptions body with dryRun All, in JSON or YAML, deletes nothing and answers the object', async () => {
    const fixtures = await createOneOfEach('http');
    for (const [index, fixture] of fixtures.entries()) {
      const yaml = index % 2 === 1;
      let text = '';
      const writes = await writesDuring(async () => {
        const response = await deleteWith(
          fixture.path,
          yaml ? toYaml(DRY_RUN_BODY) : DRY_RUN_BODY,
          yaml ? 'application/yaml' : 'application/json',
        );
        text = await response.text();
        expect(response.status, text).toBe(200);
      });
      const answer = JSON.parse(text) as { kind: string; metadata: { name: string } };
      expect(answer.metadata.name).toBe(fixture.path.split('/').pop());
      expect(answer.kind).not.toBe('Status');
      expect(text).not.toContain(SENSITIVE);
      for (const write of writes) expect(isDryRun(write), `${write.method} ${write.rawUrl} ${write.body}`).toBe(true);
    }
    await expectAllInPlace(fixtures);
  });

  it('issue 20: dryRun in the query with a DeleteOptions body that has none is still a dry run', async () => {
    const fixtures = await createOneOfEach('query');
    for (const fixture of fixtures)
      await deleteWith(`${fixture.path}?dryRun=All`, { kind: 'DeleteOptions', apiVersion: 'v1' }).then(
        expectStatus(200),
      );
    await expectAllInPlace(fixtures);
  });
});

describe('issue 20: a dry-run create, replace, patch or apply of a Project or VariableSet writes no namespace and no Secret', () => {
  const project = (name: string) => projectObject(name);
  const variableSet = (name: string, value: string, metadata: Record<string, unknown> = {}) => {
    const object = variableSetObject(name, [{ name: 'password', sensitive: true, value }]);
    return { ...object, metadata: { name, ...metadata } };
  };

  it('issue 20: a dry-run create or apply of a Project creates neither the Project nor its namespace', async () => {
    const { url } = platform().gateway;
    const token = platform().tokens.admin;
    const writes = await writesDuring(async () => {
      await send(url, token, 'POST', `${API}/projects?dryRun=All`, project('dry-created')).then(expectStatus(201));
      await send(
        url,
        token,
        'PATCH',
        `${API}/projects/dry-applied?dryRun=All&fieldManager=tests`,
        project('dry-applied'),
        'application/apply-patch+yaml',
      ).then(expectStatus(201));
    });
    for (const write of writes) expect(isDryRun(write), `${write.method} ${write.rawUrl}`).toBe(true);
    // The namespace was asked for, as a dry run: what the real create would have checked, the dry run checks.
    expect(writes.some((write) => write.info.resource === 'namespaces' && write.method === 'POST')).toBe(true);
    for (const path of [
      `${API}/projects/dry-created`,
      '/api/v1/namespaces/dry-created',
      `${API}/projects/dry-applied`,
      '/api/v1/namespaces/dry-applied',
    ])
      expect(await platform().clusterAdmin.find(path), path).toBeUndefined();
  });

  it('issue 20: dry-run writes of a VariableSet leave its Secret and the object as they were and never answer the value', async () => {
    const { url } = platform().gateway;
    const token = platform().tokens.admin;
    const path = `${namespaced('variablesets')}/dry-vs`;
    const secretPath = `/api/v1/namespaces/${TEAM_PROJECT}/secrets/variableset-dry-vs`;
    await send(url, token, 'POST', namespaced('variablesets'), variableSet('dry-vs', 'stored-value')).then(
      expectStatus(201),
    );
    const before = {
      object: await platform().clusterAdmin.find<{ metadata: { resourceVersion: string } }>(path),
      secret: await platform().clusterAdmin.find(secretPath),
    };
    const plainVariable = { name: 'region', value: 'eu' };
    const current = { resourceVersion: before.object!.metadata.resourceVersion };
    const answers: string[] = [];
    const answer = (status: number) => async (response: Response) => {
      const text = await response.text();
      expect(response.status, text).toBe(status);
      answers.push(text);
    };
    const writes = await writesDuring(async () => {
      await send(
        url,
        token,
        'POST',
        `${namespaced('variablesets')}?dryRun=All`,
        variableSet('dry-new', 'new-value'),
      ).then(answer(201));
      await send(url, token, 'PUT', `${path}?dryRun=All`, variableSet('dry-vs', 'replaced-value', current)).then(
        answer(200),
      );
      // Without a sensitive variable the real replace would delete the Secret.
      await send(url, token, 'PUT', `${path}?dryRun=All`, {
        ...variableSet('dry-vs', '', current),
        spec: { variables: [plainVariable] },
      }).then(answer(200));
      await send(
        url,
        token,
        'PATCH',
        `${path}?dryRun=All`,
        { spec: { variables: [{ name: 'password', sensitive: true, value: 'patched-value' }] } },
        'application/merge-patch+json',
      ).then(answer(200));
      await send(
        url,
        token,
        'PATCH',
        `${path}?dryRun=All&fieldManager=tests&force=true`,
        toYaml(variableSet('dry-vs', 'applied-value')),
        'application/apply-patch+yaml',
      ).then(answer(200));
      await send(
        url,
        token,
        'PATCH',
        `${namespaced('variablesets')}/dry-applied?dryRun=All&fieldManager=tests`,
        toYaml(variableSet('dry-applied', 'applied-new-value')),
        'application/apply-patch+yaml',
      ).then(answer(201));
    });
    for (const write of writes) expect(isDryRun(write), `${write.method} ${write.rawUrl}`).toBe(true);
    // The Secret writes were asked for, as dry runs.
    expect(writes.some((write) => write.info.resource === 'secrets')).toBe(true);
    expect(await platform().clusterAdmin.find(path)).toEqual(before.object);
    expect(await platform().clusterAdmin.find(secretPath)).toEqual(before.secret);
    for (const name of ['dry-new', 'dry-applied']) {
      expect(await platform().clusterAdmin.find(`${namespaced('variablesets')}/${name}`)).toBeUndefined();
      expect(
        await platform().clusterAdmin.find(`/api/v1/namespaces/${TEAM_PROJECT}/secrets/variableset-${name}`),
      ).toBeUndefined();
    }
    for (const value of [
      'new-value',
      'replaced-value',
      'patched-value',
      'applied-value',
      'applied-new-value',
      'stored-value',
    ])
      for (const text of answers) expect(text).not.toContain(value);
  });
});

describe('issue 20: every DeleteOptions field takes effect on the cluster or is a 400 naming it', () => {
  it('issue 20: propagationPolicy, gracePeriodSeconds and preconditions from the body or the query reach the cluster', async () => {
    const { url } = platform().gateway;
    const token = platform().tokens.admin;
    const created = await send(url, token, 'POST', namespaced('workspaces'), workspaceObject('options-body')).then(
      expectStatus(201),
    );
    const bodyOptions = {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Foreground',
      gracePeriodSeconds: 0,
      preconditions: { uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion },
    };
    const byBody = await writesDuring(() =>
      deleteWith(`${namespaced('workspaces')}/options-body`, bodyOptions).then(expectStatus(200)),
    );
    expect(byBody.map((write) => JSON.parse(write.body))).toEqual([{ ...bodyOptions }]);
    await send(url, token, 'POST', namespaced('workspaces'), workspaceObject('options-query')).then(expectStatus(201));
    const byQuery = await writesDuring(() =>
      send(
        url,
        token,
        'DELETE',
        `${namespaced('workspaces')}/options-query?propagationPolicy=Orphan&gracePeriodSeconds=5`,
      ).then(expectStatus(200)),
    );
    expect(byQuery.map((write) => JSON.parse(write.body))).toEqual([
      { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan', gracePeriodSeconds: 5 },
    ]);
  });

  it("issue 20: a precondition that does not match is the cluster's 409 and deletes nothing", async () => {
    const { url } = platform().gateway;
    const token = platform().tokens.admin;
    await send(url, token, 'POST', namespaced('workspaces'), workspaceObject('guarded')).then(expectStatus(201));
    const path = `${namespaced('workspaces')}/guarded`;
    for (const preconditions of [{ uid: 'not-the-uid' }, { resourceVersion: '1' }]) {
      const refused = await deleteWith(path, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions }).then(
        expectStatus(409),
      );
      expect(refused).toMatchObject({ kind: 'Status', reason: 'Conflict' });
      expect(refused.message).toMatch(/precondition/i);
    }
    expect(await platform().clusterAdmin.find(path)).toBeDefined();
  });

  it('issue 20: unsupported DeleteOptions in the body or the query are a 400 naming them, and delete nothing', async () => {
    const { url } = platform().gateway;
    const token = platform().tokens.admin;
    await send(url, token, 'POST', namespaced('workspaces'), workspaceObject('refusing')).then(expectStatus(201));
    const path = `${namespaced('workspaces')}/refusing`;
    const options = (fields: Record<string, unknown>) => ({ kind: 'DeleteOptions', apiVersion: 'v1', ...fields });
    const cases: { query?: string; body?: unknown; names: string }[] = [
      { body: options({ dryRun: ['Some'] }), names: 'dryRun' },
      { body: options({ dryRun: 'All' }), names: 'dryRun' },
      { body: options({ propagationPolicy: 'Sideways' }), names: 'propagationPolicy' },
      { body: options({ orphanDependents: true }), names: 'orphanDependents' },
      { body: options({ ignoreStoreReadErrorWithClusterBreakingPotential: true }), names: 'ignoreStoreReadError' },
      { body: options({ gracePeriodSeconds: -1 }), names: 'gracePeriodSeconds' },
      { body: options({ gracePeriodSeconds: 1.5 }), names: 'gracePeriodSeconds' },
      { body: options({ gracePeriodSeconds: '5' }), names: 'gracePeriodSeconds' },
      { body: options({ preconditions: { uid: 7 } }), names: 'preconditions.uid' },
      { body: options({ preconditions: { generation: '1' } }), names: 'generation' },
      { body: { kind: 'Pod', apiVersion: 'v1' }, names: 'kind' },
      { body: { kind: 'DeleteOptions', apiVersion: 'v2' }, names: 'apiVersion' },
      { body: ['dryRun'], names: 'DeleteOptions' },
      { query: 'dryRun=Some', names: 'dryRun' },
      { query: 'propagationPolicy=Sideways', names: 'propagationPolicy' },
      { query: 'gracePeriodSeconds=-1', names: 'gracePeriodSeconds' },
      { query: 'orphanDependents=true', names: 'orphanDependents' },
      {
        query: 'propagationPolicy=Orphan',
        body: options({ propagationPolicy: 'Foreground' }),
        names: 'propagationPolicy',
      },
    ];
    for (const { query, body, names } of cases) {
      const target = query ? `${path}?${query}` : path;
      const refused = await send(url, token, 'DELETE', target, body).then(expectStatus(400));
      expect(refused, JSON.stringify({ query, body })).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
      expect(refused.message, JSON.stringify({ query, body })).toContain(names);
    }
    expect(await platform().clusterAdmin.find(path)).toBeDefined();
  });

  it('issue 20: Orphan is refused for Projects and VariableSets, whose namespace or Secret the server deletes itself', async () => {
    const fixtures = await createOneOfEach('orphan');
    for (const fixture of fixtures.filter((candidate) => ['project', 'variableset'].includes(candidate.kubectlKind))) {
      const refused = await deleteWith(fixture.path, { propagationPolicy: 'Orphan' }).then(expectStatus(400));
      expect(refused.message).toContain('Orphan');
    }
    await expectAllInPlace(fixtures);
  });
});
