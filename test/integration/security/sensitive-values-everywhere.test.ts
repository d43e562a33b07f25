// Issue 20, Build 7: a VariableSet's sensitive values are absent from every answer that can carry a VariableSet:
// get, list, Tables (includeObject None, Metadata, Object), watch events of every type (ADDED, MODIFIED,
// DELETED, as JSON and as Tables), dry-run answers and managedFields. Three kinds of value: one written
// inline as sensitive (moved to the Secret), one a Secret reference points at, and one stored in clear
// beside `sensitive: true` by someone writing to the cluster directly, which only the presenter can hide.
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import {
  API,
  TEAM_PROJECT,
  expectStatus,
  send,
  usePlatform,
  variableSetObject,
} from '../../support/platform-fixture.ts';

const platform = usePlatform();
const collection = `${API}/namespaces/${TEAM_PROJECT}/variablesets`;
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const INLINE = 'inline-sensitive-5e1f';
const REFERENCED = 'referenced-sensitive-77c2';
const IN_CLEAR = 'stored-in-clear-a93b';
const SECRETS = [INLINE, REFERENCED, IN_CLEAR];

/** What a VariableSet with a value in clear beside `sensitive: true` looks like in the cluster. */
const clearVariableSet = (name: string, description = 'written to the cluster directly') => ({
  ...variableSetObject(name, [{ name: 'token', sensitive: true, value: IN_CLEAR }]),
  metadata: { name, namespace: TEAM_PROJECT, annotations: { note: description } },
});

function call(method: string, path: string, body?: unknown, contentType?: string): Promise<Response> {
  return send(platform().gateway.url, platform().tokens.admin, method, path, body, contentType);
}

function get(path: string, accept = 'application/json'): Promise<Response> {
  return fetch(`${platform().gateway.url}${path}`, {
    headers: { authorization: `Bearer ${platform().tokens.admin}`, accept },
  });
}

/** The answer's text after checking its status; fails naming the first sensitive value it contains. */
async function shownText(response: Response, status = 200): Promise<string> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  for (const secret of SECRETS) expect(text, `${response.url} shows ${secret}`).not.toContain(secret);
  return text;
}

const writeInCluster = (method: string, path: string, body?: unknown) =>
  platform().clusterAdmin.send({ method, path, ...(body ? { body } : {}) });

beforeAll(async () => {
  await writeInCluster('POST', `/api/v1/namespaces/${TEAM_PROJECT}/secrets`, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'database' },
    stringData: { password: REFERENCED },
  });
  await call(
    'POST',
    collection,
    variableSetObject('shown', [
      { name: 'inline', sensitive: true, value: INLINE },
      { name: 'referenced', sensitive: true, valueFrom: { secretKeyRef: { name: 'database', key: 'password' } } },
      { name: 'region', value: 'eu-west' },
    ]),
  ).then(expectStatus(201));
  await writeInCluster('POST', collection, clearVariableSet('in-clear'));
});

describe('issue 20: sensitive values are absent from every answer', () => {
  it('issue 20: get and list, as JSON, never show a sensitive value', async () => {
    for (const name of ['shown', 'in-clear']) {
      const text = await shownText(await get(`${collection}/${name}`));
      expect(JSON.parse(text).metadata.name).toBe(name);
    }
    for (const path of [collection, `${API}/variablesets`]) {
      const names = JSON.parse(await shownText(await get(path))).items.map((item: any) => item.metadata.name);
      expect(names).toEqual(expect.arrayContaining(['shown', 'in-clear']));
    }
  });

  it('issue 20: Tables of a get and of a list never show a sensitive value, with includeObject None, Metadata or Object', async () => {
    for (const includeObject of ['None', 'Metadata', 'Object']) {
      for (const path of [collection, `${API}/variablesets`, `${collection}/in-clear`, `${collection}/shown`]) {
        const table = JSON.parse(await shownText(await get(`${path}?includeObject=${includeObject}`, TABLE)));
        expect(table.kind).toBe('Table');
        const rows = table.rows.map((row: any) => row.object?.metadata?.name ?? row.cells[0]);
        expect(rows.length).toBeGreaterThan(0);
        if (includeObject === 'Object' && path === collection)
          expect(table.rows.find((row: any) => row.object.metadata.name === 'in-clear').object.spec.variables).toEqual([
            expect.objectContaining({ name: 'token', sensitive: true }),
          ]);
      }
    }
  });

  it('issue 20: watch events of every type (ADDED, MODIFIED, DELETED), as JSON and as Tables, never show a sensitive value', async () => {
    for (const accept of ['application/json', TABLE.split(',')[0]!]) {
      await writeInCluster('POST', collection, clearVariableSet('watched'));
      const abort = new AbortController();
      const response = await fetch(
        `${platform().gateway.url}${collection}?watch=true&resourceVersion=0${accept === 'application/json' ? '' : '&includeObject=Object'}`,
        { headers: { authorization: `Bearer ${platform().tokens.admin}`, accept }, signal: abort.signal },
      );
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      let text = '';
      const readUntil = async (done: () => boolean) => {
        while (!done()) text += new TextDecoder().decode((await reader.read()).value);
      };
      const eventNamed = (type: string, name: string) =>
        text.split('\n').some((line) => {
          if (!line.trim()) return false;
          const event = JSON.parse(line);
          const objectName = event.object?.metadata?.name ?? event.object?.rows?.[0]?.object?.metadata?.name;
          return event.type === type && objectName === name;
        });
      await readUntil(() => eventNamed('ADDED', 'watched'));
      // Changed and deleted in the cluster directly, so each event's object still carries the value in clear.
      const path = `${collection}/watched`;
      await writeInCluster('PUT', path, {
        ...clearVariableSet('watched', 'changed'),
        metadata: {
          ...clearVariableSet('watched', 'changed').metadata,
          resourceVersion: (await platform().clusterAdmin.find<any>(path)).metadata.resourceVersion,
        },
      });
      await readUntil(() => eventNamed('MODIFIED', 'watched'));
      await writeInCluster('DELETE', path);
      await readUntil(() => eventNamed('DELETED', 'watched'));
      abort.abort();
      for (const secret of SECRETS) expect(text, `${accept} watch shows ${secret}`).not.toContain(secret);
      expect(text).toContain('"token"');
    }
  });

  it('issue 20: dry-run answers of create, replace, patch, apply and delete never show a sensitive value', async () => {
    const path = `${collection}/in-clear`;
    const current = await platform().clusterAdmin.find<any>(path);
    await shownText(
      await call(
        'POST',
        `${collection}?dryRun=All`,
        variableSetObject('dry', [{ name: 'a', sensitive: true, value: INLINE }]),
      ),
      201,
    );
    await shownText(
      await call('PUT', `${path}?dryRun=All`, {
        ...current,
        metadata: { ...current.metadata, labels: { dry: 'yes' } },
      }),
    );
    await shownText(
      await call(
        'PATCH',
        `${path}?dryRun=All`,
        { metadata: { labels: { dry: 'yes' } } },
        'application/merge-patch+json',
      ),
    );
    await shownText(
      await call(
        'PATCH',
        `${collection}/dry-applied?dryRun=All&fieldManager=tests`,
        toYaml(variableSetObject('dry-applied', [{ name: 'a', sensitive: true, value: INLINE }])),
        'application/apply-patch+yaml',
      ),
      201,
    );
    await shownText(await call('DELETE', path, { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] }));
    await shownText(await call('DELETE', `${path}?dryRun=All`));
    expect(await platform().clusterAdmin.find(path)).toBeDefined();
  });

  it('issue 20: managedFields of an applied VariableSet record fields, never a sensitive value', async () => {
    const applied = await call(
      'PATCH',
      `${collection}/applied?fieldManager=tests`,
      toYaml(
        variableSetObject('applied', [
          { name: 'inline', sensitive: true, value: INLINE },
          { name: 'referenced', sensitive: true, valueFrom: { secretKeyRef: { name: 'database', key: 'password' } } },
        ]),
      ),
      'application/apply-patch+yaml',
    );
    await shownText(applied, 201);
    const object = JSON.parse(await shownText(await get(`${collection}/applied`)));
    expect(object.metadata.managedFields.map((entry: any) => entry.manager)).toContain('tests');
    const stored = await platform().clusterAdmin.find(`${collection}/applied`);
    expect(JSON.stringify(stored)).not.toContain(INLINE);
  });
});
