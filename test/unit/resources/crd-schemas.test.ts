// The CustomResourceDefinitions' OpenAPI validation schemas (the chart's files, the single source),
// checked with a JSON Schema validator: the objects the platform writes pass, malformed ones do not.
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readPlatformCrdFiles } from '../../../shared/contract/kinds/platform-crd-files.ts';
import { MAX_APPROVERS, MAX_REQUIRED_GROUPS } from '../../../shared/contract/rules/rollout-stage.ts';

const GROUP = 'platform.dev';
const crds = (await readPlatformCrdFiles(GROUP)).map((text) => parse(text)) as Array<{
  spec: { names: { kind: string }; versions: Array<{ schema: { openAPIV3Schema: object } }> };
}>;
// Kubernetes' own keywords (list types, CEL rules) are enforced by the API server, not by JSON Schema.
const ajv = new Ajv({ strict: false, allErrors: true });
const validatorOf = (kind: string) => {
  const crd = crds.find((candidate) => candidate.spec.names.kind === kind)!;
  return ajv.compile(crd.spec.versions[0]!.schema.openAPIV3Schema);
};
const object = (kind: string, spec: Record<string, unknown>) => ({
  apiVersion: `${GROUP}/v1alpha1`,
  kind,
  metadata: { name: 'x' },
  spec,
});

const VALID: Array<[string, Record<string, unknown>]> = [
  ['Project', { displayName: 'Team A', description: 'Networking', contact: '#team-a' }],
  [
    'Workspace',
    {
      source: { repository: 'https://git.example.com/infra.git', ref: 'main', path: 'network/prod' },
      tool: { name: 'terraform', version: '1.9.0' },
      variableSetRefs: [{ name: 'common' }],
      autoApply: false,
    },
  ],
  [
    'Rollout',
    {
      revision: 'abc123',
      failurePolicy: 'Halt',
      stages: [{ workspace: 'staging' }, { workspace: 'production', requireApproval: true, approved: false }],
    },
  ],
  [
    'Rollout',
    {
      revision: 'abc123',
      stages: [{ workspace: 'production', approval: { required: true, distinctFromAuthor: true }, approved: true }],
    },
  ],
  [
    'VariableSet',
    {
      variables: [
        { name: 'region', value: 'eu' },
        { name: 'TF_LOG', category: 'env', value: 'INFO' },
        {
          name: 'db_password',
          sensitive: true,
          valueFrom: { secretKeyRef: { name: 'variableset-x', key: 'db_password' } },
        },
      ],
    },
  ],
];

const INVALID: Array<[string, string, Record<string, unknown>]> = [
  ['Workspace', 'without a repository', { source: {}, tool: { version: '1.9.0' } }],
  ['Workspace', 'with a tool version that is not exact', { source: { repository: 'r' }, tool: { version: 'latest' } }],
  ['Workspace', 'with an unknown tool', { source: { repository: 'r' }, tool: { name: 'pulumi', version: '1.0.0' } }],
  ['Rollout', 'without stages', { revision: 'abc', stages: [] }],
  [
    'Rollout',
    'whose stage approval is not an object of booleans',
    { revision: 'abc', stages: [{ workspace: 'a', approval: { required: 'yes' } }] },
  ],
  [
    'Rollout',
    'with an unknown failure policy',
    { revision: 'abc', stages: [{ workspace: 'a' }], failurePolicy: 'Ignore' },
  ],
  ['VariableSet', 'with a variable name that is no identifier', { variables: [{ name: 'my-var', value: '1' }] }],
  ['VariableSet', 'with an unknown category', { variables: [{ name: 'a', category: 'ansible', value: '1' }] }],
];

describe('CRDs: OpenAPI validation schemas for Project, Workspace, Rollout and VariableSet in <api_group>/v1alpha1', () => {
  it('defines the six kinds (Notifications: issue 47; RunTasks: issue 48), each with a status subresource and printer columns', () => {
    expect(crds.map((crd) => crd.spec.names.kind).sort()).toEqual([
      'Notification',
      'Project',
      'Rollout',
      'RunTask',
      'VariableSet',
      'Workspace',
    ]);
    for (const crd of crds as unknown as Array<{
      spec: {
        group: string;
        versions: Array<{ name: string; subresources?: { status?: object }; additionalPrinterColumns?: unknown[] }>;
      };
    }>) {
      expect(crd.spec.group).toBe(GROUP);
      expect(crd.spec.versions[0]).toMatchObject({ name: 'v1alpha1', subresources: { status: {} } });
      expect(crd.spec.versions[0]!.additionalPrinterColumns!.length).toBeGreaterThan(1);
    }
  });

  it.each(VALID)('accepts a well-formed %s', (kind, spec) => {
    const validate = validatorOf(kind);
    expect(validate(object(kind, spec)), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each(INVALID)('rejects a %s %s', (kind, _case, spec) => {
    expect(validatorOf(kind)(object(kind, spec))).toBe(false);
  });
});

describe("Issue 45, item 2: a Project's policy asks of a Workspace's applies what it may ask of a stage", () => {
  const policy = (list: 'stages' | 'applies', approvals: Record<string, unknown>) =>
    object('Project', {
      approvalPolicy: {
        [list]: [
          list === 'stages' ? { rollout: 'web', stage: 'prod', approvals } : { workspace: 'network', approvals },
        ],
      },
    });
  const groups = (n: number) => Array.from({ length: n }, (_, index) => `oidc:group-${index}`);

  it.each(['stages', 'applies'] as const)(
    '%s: up to MAX_APPROVERS distinct approvers and MAX_REQUIRED_GROUPS groups, and no more',
    (list) => {
      const validate = validatorOf('Project');
      const most = policy(list, {
        count: MAX_APPROVERS,
        groups: groups(MAX_REQUIRED_GROUPS),
        distinctFromAuthor: true,
      });
      expect(validate(most), JSON.stringify(validate.errors)).toBe(true);
      expect(validate(policy(list, { count: MAX_APPROVERS + 1 }))).toBe(false);
      expect(validate(policy(list, { groups: groups(MAX_REQUIRED_GROUPS + 1) }))).toBe(false);
    },
  );
});
