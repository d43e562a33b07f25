// Issue 20, item 7: what a resource body says is checked as strictly as the path, proven with bodies
// that are otherwise valid, so each refusal can only come from the rule under test.
// - Names in bodies: `metadata.name` must be a valid name of its kind (a Project's is a DNS label, the
//   others' a DNS subdomain), as in a path: 422 Invalid naming the field, by POST, PUT and server-side apply,
//   for every kind; a `metadata.namespace` other than the path's is 400. Nothing changes.
// - YAML limits: a valid object whose anchored value appears (anchor and aliases) more times than the
//   limit is refused for that reason; the same object at the limit is created.
import { stringify as toYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { YAML_ALIAS_LIMIT } from '../../../functions/resources/kinds/resource-body.ts';
import { PLATFORM_KINDS, type PlatformKind } from '../../../shared/contract/kinds/platform-kinds.ts';
import { storedState } from '../../support/stored-state.ts';
import {
  API,
  TEAM_PROJECT,
  expectStatus,
  send,
  usePlatform,
  validObject,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const platform = usePlatform();
/** A request as the admin, with its body's media type. */
const asAdmin = (method: string, path: string, text: string, type: string) =>
  send(platform().gateway.url, platform().tokens.admin, method, path, text, type);

/** Names no kind takes, and names only a DNS label refuses (a Project's). */
const INVALID_NAMES = ['..', '.', 'Upper', 'under_score', '-leading', 'trailing-', 'a/b', 'a'.repeat(254)];
const INVALID_LABELS = ['a.b', 'a'.repeat(64)];

const collectionOf = (kind: PlatformKind) =>
  kind.namespaced ? `${API}/namespaces/${TEAM_PROJECT}/${kind.plural}` : `${API}/${kind.plural}`;

/** The three ways a body names an object: create, replace and server-side apply of `named-right`. */
function writes(kind: PlatformKind, body: Record<string, unknown>) {
  const item = `${collectionOf(kind)}/named-right`;
  return [
    { how: 'POST', method: 'POST', path: collectionOf(kind), text: JSON.stringify(body), type: 'application/json' },
    { how: 'PUT', method: 'PUT', path: item, text: JSON.stringify(body), type: 'application/json' },
    {
      how: 'apply',
      method: 'PATCH',
      path: `${item}?fieldManager=tests`,
      text: toYaml(body),
      type: 'application/apply-patch+yaml',
    },
  ];
}

function withMetadata(object: Record<string, unknown>, metadata: Record<string, unknown>): Record<string, unknown> {
  return { ...object, metadata: { ...(object.metadata as object), ...metadata } };
}

describe('Issue 20: metadata.name in a body is checked like a name in a path, for every kind, by POST, PUT and apply', () => {
  it.each(PLATFORM_KINDS.map((kind) => [kind.kind, kind] as const))(
    '%s: each invalid name is 422 Invalid naming metadata.name, and nothing changes',
    async (_, kind) => {
      const names = kind.namespaced ? INVALID_NAMES : [...INVALID_NAMES, ...INVALID_LABELS];
      for (const name of names) {
        for (const write of writes(kind, withMetadata(validObject(kind.kind, 'named-right'), { name }))) {
          const what = `${write.how} ${kind.kind} named ${JSON.stringify(name.slice(0, 20))}`;
          const before = await storedState(platform());
          const refused = await asAdmin(write.method, write.path, write.text, write.type)
            .then(expectStatus(422))
            .catch((error: Error) => ({ error: `${what}: ${error.message}` }));
          expect(refused, what).toMatchObject({
            kind: 'Status',
            reason: 'Invalid',
            details: { kind: kind.kind, causes: [{ reason: 'FieldValueInvalid', field: 'metadata.name' }] },
          });
          expect(await storedState(platform()), `${what} changed something`).toBe(before);
        }
      }
    },
    60_000,
  );

  it.each(PLATFORM_KINDS.filter((kind) => kind.namespaced).map((kind) => [kind.kind, kind] as const))(
    '%s: a metadata.namespace other than the path one (`..`, another Project) is 400, and nothing changes',
    async (_, kind) => {
      for (const namespace of ['..', 'team-b']) {
        const body = withMetadata(validObject(kind.kind, 'named-right'), { namespace });
        for (const write of writes(kind, body)) {
          const what = `${write.how} ${kind.kind} in namespace ${JSON.stringify(namespace)}`;
          const before = await storedState(platform());
          const response = await asAdmin(write.method, write.path, write.text, write.type);
          expect([response.status, (await response.json()).message], what).toEqual([
            400,
            'the namespace of the provided object does not match the namespace sent on the request',
          ]);
          expect(await storedState(platform()), `${what} changed something`).toBe(before);
        }
      }
    },
  );

  it.each(PLATFORM_KINDS.map((kind) => [kind.kind, kind] as const))(
    '%s: the same body with a valid name is accepted by POST, PUT and apply (so each refusal came from the name)',
    async (_, kind) => {
      const url = platform().gateway.url;
      const token = platform().tokens.admin;
      const [post, put, apply] = writes(kind, validObject(kind.kind, 'named-right'));
      await send(url, token, post!.method, post!.path, post!.text, post!.type).then(expectStatus(201));
      const stored = await send(url, token, 'GET', put!.path).then(expectStatus(200));
      const replaced = withMetadata(validObject(kind.kind, 'named-right'), {
        resourceVersion: stored.metadata.resourceVersion,
      });
      await send(url, token, put!.method, put!.path, JSON.stringify(replaced), put!.type).then(expectStatus(200));
      await send(url, token, apply!.method, apply!.path, apply!.text, apply!.type).then(expectStatus(200));
    },
  );
});

describe('Issue 44, item 15: a body without apiVersion is told that apiVersion is required and which one, for every kind, by POST, PUT and apply', () => {
  it.each(PLATFORM_KINDS.map((kind) => [kind.kind, kind] as const))(
    '%s: 400 BadRequest naming the expected apiVersion, and nothing changes',
    async (_, kind) => {
      const { apiVersion, ...withoutApiVersion } = validObject(kind.kind, 'named-right');
      for (const body of [withoutApiVersion, { ...withoutApiVersion, apiVersion: '' }]) {
        for (const write of writes(kind, body)) {
          const what = `${write.how} ${kind.kind} with apiVersion ${JSON.stringify(body.apiVersion)}`;
          const before = await storedState(platform());
          const refused = await asAdmin(write.method, write.path, write.text, write.type)
            .then(expectStatus(400))
            .catch((error: Error) => ({ error: `${what}: ${error.message}` }));
          expect(refused, what).toMatchObject({
            kind: 'Status',
            reason: 'BadRequest',
            message: `apiVersion is required: expected ${JSON.stringify(apiVersion)}`,
          });
          expect(await storedState(platform()), `${what} changed something`).toBe(before);
        }
      }
    },
  );
});

/** A valid Workspace in YAML whose annotations hold one anchored value `occurrences` times: the anchor, then aliases. */
function workspaceWithAliases(name: string, occurrences: number): string {
  const object = workspaceObject(name);
  const annotations = [
    '    anchored: &value repeated',
    ...Array.from({ length: occurrences - 1 }, (_, index) => `    alias-${index}: *value`),
  ];
  const yaml = toYaml({ ...object, metadata: { name } });
  return yaml.replace(`  name: ${name}\n`, `  name: ${name}\n  annotations:\n${annotations.join('\n')}\n`);
}

describe(`Issue 20: the YAML alias limit (${YAML_ALIAS_LIMIT}) refuses an otherwise valid object, and only beyond the limit`, () => {
  const workspaces = `${API}/namespaces/${TEAM_PROJECT}/workspaces`;

  it('a valid Workspace whose anchored value appears once more than the limit is 400 for that reason, by POST and apply; nothing changes', async () => {
    for (const [method, path, type] of [
      ['POST', workspaces, 'application/yaml'],
      ['PATCH', `${workspaces}/aliased-over?fieldManager=tests`, 'application/apply-patch+yaml'],
    ] as const) {
      const before = await storedState(platform());
      const refused = await asAdmin(
        method,
        path,
        workspaceWithAliases('aliased-over', YAML_ALIAS_LIMIT + 1),
        type,
      ).then(expectStatus(400));
      expect(refused, method).toMatchObject({
        kind: 'Status',
        reason: 'BadRequest',
        message: `the request body is refused: a YAML anchor and its aliases stand for more than ${YAML_ALIAS_LIMIT} values`,
      });
      expect(await storedState(platform()), `${method} changed something`).toBe(before);
    }
  });

  it('the same Workspace with its anchored value appearing as many times as the limit is created, every alias resolved', async () => {
    const created = await asAdmin(
      'POST',
      workspaces,
      workspaceWithAliases('aliased-at-limit', YAML_ALIAS_LIMIT),
      'application/yaml',
    ).then(expectStatus(201));
    const annotations = created.metadata.annotations as Record<string, string>;
    expect(Object.keys(annotations)).toHaveLength(YAML_ALIAS_LIMIT);
    expect(annotations[`alias-${YAML_ALIAS_LIMIT - 2}`]).toBe('repeated');
  });
});
