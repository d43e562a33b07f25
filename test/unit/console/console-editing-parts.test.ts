// Issue 40, items 1 and 5: the pure parts of the console's editing and of its permissions. The merge
// patch an edit is sent as (applied by the server's own merge-patch code, it gives exactly the draft),
// the field paths of `Status` causes, the line diff of two versions, the YAML view's rules, the RBAC
// matching that reads a rules review (held against the Kubernetes emulator's authorizer), and the routes.
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { warningTexts } from '../../../functions/console/app/src/warnings.ts';
import { fromYaml } from '../../../functions/console/app/src/editing/editable.ts';
import {
  applyPatch,
  getIn,
  mergePatch,
  sameJson,
  setIn,
} from '../../../functions/console/app/src/editing/json-values.ts';
import { lineDiff } from '../../../functions/console/app/src/editing/line-diff.ts';
import { ruleAllows } from '../../../functions/console/app/src/rbac-rules.ts';
import { parseRoute } from '../../../functions/console/app/src/router.ts';
import { ruleAllows as emulatorRuleAllows } from '../../../infra/kube-emulator/rbac/rbac-authorizer.ts';
import { applyMergePatch } from '../../../shared/base/json/patches.ts';

/** JSON objects as the API answers them: no nulls (a merge patch cannot carry a null value, it removes). */
const jsonObject = fc.letrec<{ object: Record<string, unknown>; value: unknown }>((tie) => ({
  object: fc.dictionary(fc.constantFrom('spec', 'name', 'tool', 'a', 'b', 'labels'), tie('value'), { maxKeys: 4 }),
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string({ maxLength: 5 }),
    fc.integer(),
    fc.boolean(),
    fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
    tie('object'),
  ),
})).object;

describe('An edit is a merge patch from what the user saw to the draft (item 1)', () => {
  it("the server's merge patch turns the version the user saw into exactly the draft", () => {
    fc.assert(
      fc.property(jsonObject, jsonObject, (seen, draft) => {
        const patch = mergePatch(seen, draft);
        expect(applyMergePatch(seen, patch)).toEqual(draft);
        expect(applyPatch(seen, patch)).toEqual(draft);
      }),
    );
  });

  it('an unchanged draft is the empty patch; a removed field is null; a list goes whole', () => {
    const seen = {
      spec: { description: 'x', stages: [{ workspace: 'a' }, { workspace: 'b' }], tool: { version: '1' } },
    };
    expect(mergePatch(seen, structuredClone(seen))).toEqual({});
    expect(
      mergePatch(seen, { spec: { stages: [{ workspace: 'b' }], tool: { version: '1', name: 'opentofu' } } }),
    ).toEqual({ spec: { description: null, stages: [{ workspace: 'b' }], tool: { name: 'opentofu' } } });
  });

  it("the retry after a conflict puts the user's changes on top of the current version", () => {
    const seen = { spec: { description: 'old', tool: { version: '1.8.2' } } };
    const mine = { spec: { description: 'mine', tool: { version: '1.8.2' } } };
    const current = { spec: { description: 'old', tool: { version: '1.9.0' } } };
    expect(applyPatch(current, mergePatch(seen, mine))).toEqual({
      spec: { description: 'mine', tool: { version: '1.9.0' } },
    });
  });

  it('`prototype` keys are plain data', () => {
    const draft = JSON.parse('{"constructor": {"a": 1}, "__proto__": {"b": 2}}');
    const patch = mergePatch({}, draft);
    expect(sameJson(applyPatch({}, patch), draft)).toBe(true);
    expect(({} as Record<string, unknown>).b).toBeUndefined();
  });
});

describe("Fields are named by a Status cause's path (item 1: the server's messages beside the field)", () => {
  it('reads and writes `spec.variables[1].value`, leaving the rest as it was', () => {
    const draft = { spec: { variables: [{ name: 'a' }, { name: 'b', value: 'x' }] } };
    expect(getIn(draft, 'spec.variables[1].value')).toBe('x');
    const changed = setIn(draft, 'spec.variables[1].value', 'y');
    expect(changed).toEqual({ spec: { variables: [{ name: 'a' }, { name: 'b', value: 'y' }] } });
    expect(draft.spec.variables[1]!.value).toBe('x');
  });

  it('an emptied field goes, and so does the object it leaves empty (no `credentialsSecretRef: {}`)', () => {
    const draft = { spec: { source: { repository: 'r', credentialsSecretRef: { name: 'git' } } } };
    expect(setIn(draft, 'spec.source.credentialsSecretRef.name', '')).toEqual({
      spec: { source: { repository: 'r' } },
    });
    expect(setIn(draft, 'spec.source.ref', 'main')).toEqual({
      spec: { source: { repository: 'r', ref: 'main', credentialsSecretRef: { name: 'git' } } },
    });
    expect(setIn({ spec: { autoApply: true } }, 'spec.autoApply', false)).toEqual({ spec: { autoApply: false } });
  });
});

describe('What changed is a line diff of the two versions (item 1: review and conflict)', () => {
  const lines = fc.array(fc.constantFrom('a', 'b', 'c', '  d: 1', ''), { maxLength: 12 });

  it('its kept and removed lines are the old text, its kept and added lines the new one', () => {
    fc.assert(
      fc.property(lines, lines, (before, after) => {
        const diff = lineDiff(before.join('\n'), after.join('\n'));
        expect(diff.filter((line) => line.kind !== 'added').map((line) => line.text)).toEqual(
          before.join('\n').split('\n'),
        );
        expect(diff.filter((line) => line.kind !== 'removed').map((line) => line.text)).toEqual(
          after.join('\n').split('\n'),
        );
      }),
    );
  });

  it('keeps as many lines as the two versions share (a longest common subsequence)', () => {
    const diff = lineDiff('spec:\n  a: 1\n  b: 2\n  c: 3', 'spec:\n  a: 1\n  b: 5\n  c: 3\n  d: 4');
    expect(diff).toEqual([
      { kind: 'same', text: 'spec:' },
      { kind: 'same', text: '  a: 1' },
      { kind: 'removed', text: '  b: 2' },
      { kind: 'added', text: '  b: 5' },
      { kind: 'same', text: '  c: 3' },
      { kind: 'added', text: '  d: 4' },
    ]);
  });
});

describe('The YAML view edits metadata and spec; a sensitive value is never typed into it (items 1 and 2)', () => {
  const read = (text: string, creating = false) => fromYaml(parseYaml(text), creating, 'network');

  it('reads metadata (name, labels, annotations) and spec', () => {
    expect(read('metadata:\n  name: network\n  labels: {team: a}\nspec:\n  description: x\n')).toEqual({
      metadata: { name: 'network', labels: { team: 'a' } },
      spec: { description: 'x' },
    });
  });

  it('refuses anything else, a new name for an existing object, and a sensitive variable with a value', () => {
    expect(() => read('metadata: {name: network}\nstatus: {}\n')).toThrow(/not status/);
    expect(() => read('metadata: {name: network, resourceVersion: "1"}\n')).toThrow(/not resourceVersion/);
    expect(() => read('metadata: {name: other}\n')).toThrow(/The name stays network/);
    expect(() => read('metadata: {name: other}\n', true)).not.toThrow();
    expect(() =>
      read('metadata: {name: network}\nspec:\n  variables:\n    - {name: token, sensitive: true, value: x}\n'),
    ).toThrow(/never into the YAML: remove the value of token/);
    expect(() => read('- a\n')).toThrow(/mapping/);
  });
});

describe("Controls by permission read a rules review as Kubernetes' RBAC does (item 5)", () => {
  const names = fc.constantFrom('', 'network', 'release', '*');
  const rule = fc.record({
    verbs: fc.subarray(['get', 'list', 'create', 'patch', 'delete', 'approve', '*'], { minLength: 1 }),
    apiGroups: fc.subarray(['platform.dev', 'audit.k8s.io', '', '*'], { minLength: 1 }),
    resources: fc.subarray(['workspaces', 'workspaces/runs', 'rollouts', 'events', '*', '*/runs', 'workspaces/log'], {
      minLength: 1,
    }),
    resourceNames: fc.subarray(['network', 'release']),
  });
  const asked = fc.record({
    verb: fc.constantFrom('get', 'list', 'create', 'patch', 'delete', 'approve'),
    group: fc.constantFrom('platform.dev', 'audit.k8s.io', ''),
    resource: fc.constantFrom('workspaces', 'rollouts', 'events'),
    subresource: fc.constantFrom('', 'runs', 'log'),
    name: names.filter((name) => name !== '*'),
  });

  it("agrees with the Kubernetes emulator's RBAC authorizer on every rule and request", () => {
    fc.assert(
      fc.property(rule, asked, (policy, request) => {
        const console = ruleAllows(policy, {
          verb: request.verb,
          group: request.group,
          resource: request.resource,
          ...(request.subresource ? { subresource: request.subresource } : {}),
          ...(request.name ? { name: request.name } : {}),
        });
        const emulator = emulatorRuleAllows(
          {
            user: { username: 'u', groups: [], uid: '', extra: {} },
            isResourceRequest: true,
            namespace: 'team-a',
            path: '',
            ...request,
          },
          policy,
        );
        expect(console).toBe(emulator);
      }),
    );
  });
});

describe('Routes: new objects at new/..., edits at .../edit, the audit trail with its filters', () => {
  it('reads each page, a name that is a route word included', () => {
    expect(parseRoute('#/new/projects')).toEqual({ page: 'create', plural: 'projects' });
    expect(parseRoute('#/projects/new')).toEqual({ page: 'project', project: 'new' });
    expect(parseRoute('#/projects/a/edit')).toEqual({ page: 'edit', plural: 'projects', project: 'a', name: 'a' });
    expect(parseRoute('#/projects/a/new/workspaces')).toEqual({ page: 'create', plural: 'workspaces', project: 'a' });
    expect(parseRoute('#/projects/a/workspaces/new')).toEqual({ page: 'workspace', project: 'a', workspace: 'new' });
    expect(parseRoute('#/projects/a/workspaces/edit/edit')).toEqual({
      page: 'edit',
      plural: 'workspaces',
      project: 'a',
      name: 'edit',
    });
    expect(parseRoute('#/projects/a/rollouts/r')).toEqual({ page: 'rollout', project: 'a', rollout: 'r' });
    expect(parseRoute('#/projects/a/variablesets/v')).toEqual({ page: 'variableset', project: 'a', variableSet: 'v' });
    expect(parseRoute('#/projects/a/tokens')).toEqual({ page: 'tokens', project: 'a' });
    expect(parseRoute('#/projects/a/tokens/t')).toEqual({ page: 'not-found' });
    expect(parseRoute('#/projects/a/notifications/n')).toEqual({
      page: 'notification',
      project: 'a',
      notification: 'n',
    });
    expect(parseRoute('#/projects/a/notifications/n/edit')).toEqual({ page: 'not-found' });
    expect(parseRoute('#/audit?user=admin&run=x')).toEqual({ page: 'audit', query: 'user=admin&run=x' });
    expect(parseRoute('#/projects/a/new/projects')).toEqual({ page: 'not-found' });
    expect(parseRoute('#/projects/a/runs/r/edit')).toEqual({ page: 'not-found' });
  });
});

describe("The server's warnings about a write are shown with its review (a withdrawn approval, say)", () => {
  it('reads the texts of Warning headers as fetch joins them, quotes escaped', () => {
    expect(warningTexts(null)).toEqual([]);
    expect(
      warningTexts(
        '299 - "spec.revision changed: the approval of stage prod was withdrawn; approve the new revision", 299 - "a \\"quoted\\" word, and a comma"',
      ),
    ).toEqual([
      'spec.revision changed: the approval of stage prod was withdrawn; approve the new revision',
      'a "quoted" word, and a comma',
    ]);
  });
});
