// What a hostile or careless client found sweeping the whole API from outside, each reproduced as it
// was sent, with the handbook rule it broke: "Every option a client sends takes effect or gets a 400;
// a dry run changes nothing anywhere." "Bad input gets a clear 4xx JSON error and nothing is lost."
import { describe, expect, it } from 'vitest';
import {
  API,
  TEAM_PROJECT,
  callAs,
  expectStatus,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const platform = usePlatform();
const admin = callAs(platform, 'admin');
const controller = callAs(platform, 'controller');
const runsOf = (workspace: string) => `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/${workspace}/runs`;
const runPath = (runId: string) => `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${runId}`;

async function createWorkspace(name: string): Promise<void> {
  await send(
    platform().gateway.url,
    platform().tokens.admin,
    'POST',
    `${API}/namespaces/${TEAM_PROJECT}/workspaces`,
    workspaceObject(name),
  ).then(expectStatus(201));
}

async function runsIn(workspace: string): Promise<Array<{ id: string; phase: string; lease_id: string | null }>> {
  const { rows } = await platform().database.pool.query(
    'SELECT id, phase, lease_id FROM runs WHERE project = $1 AND workspace = $2 ORDER BY id',
    [TEAM_PROJECT, workspace],
  );
  return rows;
}

describe('Every option a client sends takes effect or gets a 400: the platform routes read no query parameter they do not declare', () => {
  it('a run started with ?dryRun=All is a 400 naming dryRun, and no run is recorded (it recorded a real run, audited as a dry run)', async () => {
    await createWorkspace('dry-run-start');
    for (const query of ['?dryRun=All', '?dryRun=All&dryRun=All', '?type=apply']) {
      const answer = await admin('POST', `${runsOf('dry-run-start')}${query}`, { type: 'plan' });
      const body = await answer.json();
      expect([query, answer.status, body.reason]).toEqual([query, 400, 'BadRequest']);
      expect(body.error).toBe(
        `query parameter "${new URLSearchParams(query).keys().next().value}" is not a known field`,
      );
    }
    expect(await runsIn('dry-run-start')).toEqual([]);
  });

  it('a cancel, a read, a claim, a phase or a lease renewal with a query it does not read is a 400 and changes nothing', async () => {
    await createWorkspace('odd-options');
    const run = await admin('POST', runsOf('odd-options'), { type: 'plan' }).then(expectStatus(201));
    const before = await runsIn('odd-options');
    for (const [who, method, path, body] of [
      [admin, 'POST', `${runPath(run.id)}/cancel?dryRun=All`, undefined],
      [admin, 'GET', `${runPath(run.id)}?watch=true`, undefined],
      [controller, 'POST', '/internal/runs/claim?dryRun=All', { project: TEAM_PROJECT, workspace: 'odd-options' }],
      [admin, 'GET', '/api/v1alpha1/auth/whoami?as=someone', undefined],
    ] as const) {
      const answer = await who(method, path, body);
      expect([path, answer.status, (await answer.json()).reason]).toEqual([path, 400, 'BadRequest']);
    }
    expect(await runsIn('odd-options')).toEqual(before);
    expect(before[0]).toMatchObject({ phase: 'Pending', lease_id: null });
  });

  it('the run-log stream still takes its token from ?access_token=, and refuses anything else in the query', async () => {
    await createWorkspace('stream-query');
    const run = await admin('POST', runsOf('stream-query'), { type: 'plan' }).then(expectStatus(201));
    const stream = `/api/v1alpha1/run-logs/${TEAM_PROJECT}/${run.id}`;
    const refused = await fetch(
      `${platform().gateway.url}${stream}?access_token=${platform().tokens.admin}&follow=false`,
      {
        signal: AbortSignal.timeout(5000),
      },
    );
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toBe('query parameter "follow" is not a known field');
    const controllerAbort = new AbortController();
    const accepted = await fetch(`${platform().gateway.url}${stream}?access_token=${platform().tokens.admin}`, {
      signal: controllerAbort.signal,
    });
    expect([accepted.status, accepted.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
    controllerAbort.abort();
  });
});

describe('A JSON body that names a field twice is a 400, as a YAML body already was: the server cannot know which the client meant', () => {
  it('a delete whose DeleteOptions say dryRun twice (["All"], then []) is a 400 and the Workspace stays (it was deleted for real)', async () => {
    await createWorkspace('twice-dry-run');
    const path = `${API}/namespaces/${TEAM_PROJECT}/workspaces/twice-dry-run`;
    const body = '{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"],"dryRun":[]}';
    const answer = await send(platform().gateway.url, platform().tokens.admin, 'DELETE', path, body);
    expect([answer.status, (await answer.json()).message]).toEqual([
      400,
      'the request body is refused: duplicate field "dryRun" (a JSON object names each field once)',
    ]);
    expect(await platform().clusterAdmin.find(path)).toBeDefined();
  });

  it('a merge patch and a run start naming a field twice are refused by name, and nothing changes', async () => {
    await createWorkspace('twice-fields');
    const path = `${API}/namespaces/${TEAM_PROJECT}/workspaces/twice-fields`;
    const patch = await send(
      platform().gateway.url,
      platform().tokens.admin,
      'PATCH',
      path,
      '{"spec":{"description":"reviewed","description":"executed"}}',
      'application/merge-patch+json',
    );
    expect([patch.status, (await patch.json()).message]).toEqual([
      400,
      'the request body is refused: duplicate field "spec.description" (a JSON object names each field once)',
    ]);
    const start = await send(
      platform().gateway.url,
      platform().tokens.admin,
      'POST',
      runsOf('twice-fields'),
      '{"type":"plan","type":"apply"}',
    );
    expect([start.status, await start.json()]).toEqual([
      400,
      {
        error: 'the request body is refused: duplicate field "type" (a JSON object names each field once)',
        reason: 'InvalidRun',
      },
    ]);
    expect(await runsIn('twice-fields')).toEqual([]);
    const stored = await send(platform().gateway.url, platform().tokens.admin, 'GET', path).then(expectStatus(200));
    expect(stored.spec.description).toBeUndefined();
  });
});

describe('fieldValidation=Warn takes effect: the cluster warnings about a write reach the caller as Warning headers', () => {
  it('an unknown field under Warn is dropped and said so, on create, merge patch and server-side apply, dry run or not (the warnings were lost)', async () => {
    const path = `${API}/namespaces/${TEAM_PROJECT}/workspaces`;
    const object = workspaceObject('warned');
    const withUnknown = { ...object, spec: { ...(object.spec as object), colour: 'blue' } };
    const expected = '299 - "unknown field \\"spec.colour\\""';
    const writes: Array<[string, string, unknown, string]> = [
      ['POST', `${path}?fieldValidation=Warn&dryRun=All`, withUnknown, 'application/json'],
      ['POST', `${path}?fieldValidation=Warn`, withUnknown, 'application/json'],
      ['PATCH', `${path}/warned?fieldValidation=Warn`, { spec: { colour: 'red' } }, 'application/merge-patch+json'],
      [
        'PATCH',
        `${path}/warned?fieldValidation=Warn&fieldManager=hostile`,
        withUnknown,
        'application/apply-patch+yaml',
      ],
    ];
    for (const [method, target, body, contentType] of writes) {
      const answer = await send(platform().gateway.url, platform().tokens.admin, method, target, body, contentType);
      expect([method, target, answer.status < 300, answer.headers.get('warning')]).toEqual([
        method,
        target,
        true,
        expected,
      ]);
      expect((await answer.json()).spec.colour).toBeUndefined();
    }
    const strict = await send(
      platform().gateway.url,
      platform().tokens.admin,
      'PATCH',
      `${path}/warned?fieldValidation=Strict`,
      { spec: { colour: 'red' } },
      'application/merge-patch+json',
    );
    expect(strict.status).toBe(400);
    const quiet = await send(platform().gateway.url, platform().tokens.admin, 'GET', `${path}/warned`);
    expect(quiet.headers.get('warning')).toBeNull();
  });
});

describe('The Kubernetes-style routes keep kube-apiserver open query', () => {
  it('discovery and OpenAPI answer with the options kubectl sends (?hash=, ?timeout=)', async () => {
    for (const path of ['/openapi/v3/apis/platform.dev/v1alpha1?hash=ABC', '/apis?timeout=32s', '/version?timeout=32s'])
      expect([path, (await admin('GET', path)).status]).toEqual([path, 200]);
  });
});

describe('Every Kubernetes list and watch option reaches the cluster, which applies or refuses it: none is dropped on the way', () => {
  const options = (rawUrl: string) => Object.fromEntries(new URL(rawUrl, 'http://cluster').searchParams);
  /** The requests on Workspaces the cluster received while `work` ran, as received. */
  async function received(work: () => Promise<unknown>): Promise<Array<{ method: string; rawUrl: string }>> {
    const requests: Array<{ method: string; rawUrl: string }> = [];
    const stop = platform().cluster.emulator.observeRequests((request) => {
      if (request.info.resource === 'workspaces') requests.push(request);
    });
    try {
      await work();
    } finally {
      stop();
    }
    return requests;
  }
  const workspaces = `${API}/namespaces/${TEAM_PROJECT}/workspaces`;

  it('a list passes resourceVersion, resourceVersionMatch and timeoutSeconds on (resourceVersionMatch=Exact was answered with the current list)', async () => {
    const executed = await received(() =>
      admin('GET', `${workspaces}?resourceVersion=1&resourceVersionMatch=Exact&timeoutSeconds=7&limit=5`).then(
        (answer) => answer.text(),
      ),
    );
    expect(executed.map((request) => [request.method, options(request.rawUrl)])).toEqual([
      ['GET', { resourceVersion: '1', resourceVersionMatch: 'Exact', timeoutSeconds: '7', limit: '5' }],
    ]);
  });

  it('a watch passes sendInitialEvents and resourceVersionMatch on with its bookmarks (the client waited for an end-of-initial-events bookmark for ever)', async () => {
    const executed = await received(async () => {
      const answer = await admin(
        'GET',
        `${workspaces}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1`,
      );
      return answer.text();
    });
    expect(executed.map((request) => options(request.rawUrl))).toEqual([
      {
        watch: 'true',
        sendInitialEvents: 'true',
        resourceVersionMatch: 'NotOlderThan',
        allowWatchBookmarks: 'true',
        timeoutSeconds: '1',
      },
    ]);
  });
});

describe('?watch reads as kube-apiserver reads a boolean option: anything but 0 and false is a watch', () => {
  it('?watch=True, ?watch=yes and ?watch= stream events; 0, false and FALSE list (True and yes were answered with a list)', async () => {
    await createWorkspace('watched-by-any-true');
    const workspaces = `${API}/namespaces/${TEAM_PROJECT}/workspaces`;
    for (const value of ['True', 'yes', '', 'TRUE']) {
      const text = await admin('GET', `${workspaces}?watch=${value}&timeoutSeconds=1`).then((answer) => answer.text());
      expect([value, JSON.parse(text.split('\n')[0]!).type]).toEqual([value, 'ADDED']);
    }
    for (const value of ['0', 'false', 'FALSE']) {
      const list = await admin('GET', `${workspaces}?watch=${value}`).then(expectStatus(200));
      expect([value, list.kind]).toEqual([value, 'WorkspaceList']);
    }
  });
});

describe('A route that takes no body refuses one: what it would ignore is a 400, not an option that silently did nothing', () => {
  it('a cancel with {"dryRun": true} is a 400 and the run stays Pending (it was cancelled)', async () => {
    await createWorkspace('cancel-with-body');
    const run = await admin('POST', runsOf('cancel-with-body'), { type: 'plan' }).then(expectStatus(201));
    const answer = await admin('POST', `${runPath(run.id)}/cancel`, { dryRun: true });
    expect([answer.status, await answer.json()]).toEqual([
      400,
      { error: 'POST /api/v1alpha1/projects/{project}/runs/{run}/cancel takes no body', reason: 'BadRequest' },
    ]);
    expect(await runsIn('cancel-with-body')).toEqual([{ id: run.id, phase: 'Pending', lease_id: null }]);
    await admin('POST', `${runPath(run.id)}/cancel`).then(expectStatus(200));
  });
});

describe('A body is read only in a media type its route reads: anything else is a 415 naming those it takes', () => {
  it('a run start sent as text/plain, as a form or with no Content-Type is a 415 and no run is recorded (it was read as JSON)', async () => {
    await createWorkspace('odd-media-types');
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/yaml', undefined]) {
      const answer = await fetch(`${platform().gateway.url}${runsOf('odd-media-types')}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${platform().tokens.admin}`, ...(type ? { 'content-type': type } : {}) },
        body: Buffer.from('{"type":"plan"}'),
      });
      expect([type, answer.status, await answer.json()]).toEqual([
        type,
        415,
        {
          error: 'the body of the request was in an unknown format - accepted media types include: application/json',
          reason: 'UnsupportedMediaType',
        },
      ]);
    }
    expect(await runsIn('odd-media-types')).toEqual([]);
    for (const type of ['application/json', 'Application/JSON; charset=utf-8'])
      await send(
        platform().gateway.url,
        platform().tokens.admin,
        'POST',
        runsOf('odd-media-types'),
        { type: 'plan' },
        type,
      ).then(expectStatus(201));
  });
});

describe('What the server sends to the cluster is what it authorized: a request asking to act as someone else is refused, never run as the caller', () => {
  it('kubectl --as=bob: a delete, an access review and whoami with Impersonate-* headers are 400 naming the header, and the Workspace stays (it was deleted with the admin rights)', async () => {
    await createWorkspace('impersonated');
    const path = `${API}/namespaces/${TEAM_PROJECT}/workspaces/impersonated`;
    const deleted = await admin('DELETE', path, undefined, { 'impersonate-user': 'bob' });
    expect([deleted.status, (await deleted.json()).message]).toEqual([
      400,
      'impersonation is not supported: this server acts as the caller itself, so the "impersonate-user" header cannot take effect; send the request with the other identity\'s own token',
    ]);
    expect(await platform().clusterAdmin.find(path)).toBeDefined();
    const review = await admin(
      'POST',
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      { spec: { resourceAttributes: { verb: 'delete', group: 'platform.dev', resource: 'workspaces' } } },
      { 'impersonate-user': 'bob', 'impersonate-group': 'readers' },
    );
    expect([review.status, (await review.json()).kind]).toEqual([400, 'Status']);
    for (const header of ['impersonate-group', 'impersonate-uid', 'impersonate-extra-scopes']) {
      const whoami = await admin('GET', '/api/v1alpha1/auth/whoami', undefined, { [header]: 'x' });
      expect([header, whoami.status, (await whoami.json()).reason]).toEqual([header, 400, 'BadRequest']);
    }
    expect((await admin('GET', '/api/v1alpha1/auth/whoami')).status).toBe(200);
  });
});

describe('A namespace named in an access review is a namespace name: what the server lists for it is that namespace, nothing wider', () => {
  const serviceAccount = callAs(platform, 'serviceAccount');
  it('a rules review for namespace "..", ".", "a/b" or "%2e%2e" is a 400 naming spec.namespace (".." listed the RoleBindings of every namespace)', async () => {
    const observed: string[] = [];
    const stop = platform().cluster.emulator.observeRequests((request) => {
      if (request.info.resource === 'rolebindings' || request.info.resource === 'namespaces')
        observed.push(`${request.method} ${request.rawUrl}`);
    });
    try {
      for (const namespace of ['..', '.', 'a/b', '%2e%2e', 'Team-A']) {
        const answer = await serviceAccount('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
          spec: { namespace },
        });
        const body = await answer.json();
        expect([namespace, answer.status, body.kind, body.message]).toEqual([
          namespace,
          400,
          'Status',
          expect.stringContaining('body field "spec.namespace" must match pattern'),
        ]);
      }
    } finally {
      stop();
    }
    expect(observed).toEqual([]);
    const allowed = await serviceAccount('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
      spec: { namespace: TEAM_PROJECT },
    });
    expect(allowed.status).toBe(201);
  });
});

describe('An Accept header the server cannot answer is a 406, as kube-apiserver answers, before anything is done', () => {
  it('YAML, protobuf, HTML or a Table version it does not make is 406 NotAcceptable and a create with it writes nothing (each was answered in JSON)', async () => {
    const workspaces = `${API}/namespaces/${TEAM_PROJECT}/workspaces`;
    for (const accept of [
      'application/yaml',
      'application/vnd.kubernetes.protobuf',
      'text/html',
      'application/json;as=Table;v=v2;g=meta.k8s.io',
      'application/json;q=0',
    ]) {
      const answer = await admin('GET', workspaces, undefined, { accept });
      expect([accept, answer.status, (await answer.json()).reason]).toEqual([accept, 406, 'NotAcceptable']);
    }
    const create = await admin('POST', workspaces, workspaceObject('not-acceptable'), { accept: 'application/yaml' });
    expect(create.status).toBe(406);
    expect(await platform().clusterAdmin.find(`${workspaces}/not-acceptable`)).toBeUndefined();
    for (const accept of [
      '*/*',
      'application/*',
      'application/json;charset=utf-8',
      'application/yaml,application/json;q=0.5',
      'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    ])
      expect([accept, (await admin('GET', workspaces, undefined, { accept })).status]).toEqual([accept, 200]);
  });
});
