import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';
import { Secret } from 'kubernetes-models/v1/Secret';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { CustomResourceDefinition } from 'kubernetes-models/apiextensions.k8s.io/v1/CustomResourceDefinition';
import { Service as KnativeService } from '@kubernetes-models/knative/serving.knative.dev/v1/Service';
import { HTTPRoute } from '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRoute';
import { ReferenceGrant } from '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1beta1/ReferenceGrant';
import { Service } from 'kubernetes-models/v1/Service';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { CronJob } from 'kubernetes-models/batch/v1/CronJob';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { REPO_ROOT } from './function-servers.ts';
import type { KubeObject } from './helm.ts';

interface KindModel {
  /** The model's generated validator (JSON Schema from the kind's OpenAPI: types, required fields, enums). */
  create(data: KubeObject): { validate(): void };
  /** Where the kind's TypeScript interface lives, for the unknown-field check. */
  typeModule: string;
  typeName: string;
}

const model = (Model: new (data: never) => { validate(): void }, typeModule: string, typeName: string): KindModel => ({
  create: (data) => new Model(data as never),
  typeModule,
  typeName,
});

/** Every kind the chart renders, by `apiVersion/kind`. */
const MODELS: Record<string, KindModel> = {
  'v1/Secret': model(Secret, 'kubernetes-models/v1/Secret', 'ISecret'),
  'v1/ServiceAccount': model(ServiceAccount, 'kubernetes-models/v1/ServiceAccount', 'IServiceAccount'),
  'v1/Service': model(Service, 'kubernetes-models/v1/Service', 'IService'),
  'v1/ConfigMap': model(ConfigMap, 'kubernetes-models/v1/ConfigMap', 'IConfigMap'),
  'batch/v1/CronJob': model(CronJob, 'kubernetes-models/batch/v1/CronJob', 'ICronJob'),
  'monitoring.coreos.com/v1/ServiceMonitor': model(
    ServiceMonitor,
    '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor',
    'IServiceMonitor',
  ),
  'rbac.authorization.k8s.io/v1/ClusterRole': model(
    ClusterRole,
    'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole',
    'IClusterRole',
  ),
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': model(
    ClusterRoleBinding,
    'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding',
    'IClusterRoleBinding',
  ),
  'rbac.authorization.k8s.io/v1/Role': model(Role, 'kubernetes-models/rbac.authorization.k8s.io/v1/Role', 'IRole'),
  'rbac.authorization.k8s.io/v1/RoleBinding': model(
    RoleBinding,
    'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding',
    'IRoleBinding',
  ),
  'apiextensions.k8s.io/v1/CustomResourceDefinition': model(
    CustomResourceDefinition,
    'kubernetes-models/apiextensions.k8s.io/v1/CustomResourceDefinition',
    'ICustomResourceDefinition',
  ),
  'serving.knative.dev/v1/Service': model(
    KnativeService,
    '@kubernetes-models/knative/serving.knative.dev/v1/Service',
    'IService',
  ),
  'gateway.networking.k8s.io/v1/HTTPRoute': model(
    HTTPRoute,
    '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRoute',
    'IHTTPRoute',
  ),
  'gateway.networking.k8s.io/v1beta1/ReferenceGrant': model(
    ReferenceGrant,
    '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1beta1/ReferenceGrant',
    'IReferenceGrant',
  ),
};

/**
 * Validates rendered objects against their kinds' schemas, strictly: the generated validators
 * check types, required fields and enums but let unknown fields through, so each object is also
 * type-checked as an object literal of its kind's interface, where an unknown field (as a strict
 * API server or Knative's webhook would refuse it) is an excess-property error. Returns one
 * message per problem; empty when everything validates.
 */
export async function schemaProblems(objects: KubeObject[]): Promise<string[]> {
  const problems: string[] = [];
  const label = (object: KubeObject) => `${object.kind} ${object.metadata?.name}`;
  for (const object of objects) {
    const kind = MODELS[`${object.apiVersion}/${object.kind}`];
    if (!kind) {
      problems.push(`${label(object)}: no schema known for ${object.apiVersion} ${object.kind}`);
      continue;
    }
    try {
      kind.create(object).validate();
    } catch (error) {
      problems.push(`${label(object)}: ${(error as Error).message}`);
    }
  }
  problems.push(
    ...(await unknownFieldProblems(objects.filter((object) => MODELS[`${object.apiVersion}/${object.kind}`]))),
  );
  return problems;
}

let checks = 0;

// The check file sits under node_modules so that its imports resolve like the project's own; one
// folder per check, so checks run at once (Promise.all) never delete each other's file.
async function unknownFieldProblems(objects: KubeObject[]): Promise<string[]> {
  const folder = join(REPO_ROOT, 'node_modules/.cache/chart-schema-check', `${process.pid}-${++checks}`);
  const file = join(folder, 'rendered.ts');
  const kinds = [...new Set(objects.map((object) => MODELS[`${object.apiVersion}/${object.kind}`]!))];
  const lines = kinds.map((kind, index) => `import type { ${kind.typeName} as T${index} } from '${kind.typeModule}';`);
  const owners: string[] = [];
  objects.forEach((object, index) => {
    const kind = MODELS[`${object.apiVersion}/${object.kind}`]!;
    lines.push(`export const o${index}: T${kinds.indexOf(kind)} = ${JSON.stringify(object, null, 1)};`);
    owners.push(`${object.kind} ${object.metadata.name}`);
  });
  await mkdir(folder, { recursive: true });
  await writeFile(file, lines.join('\n'));
  try {
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      types: [],
    });
    const source = program.getSourceFile(file)!;
    return ts.getPreEmitDiagnostics(program, source).map((diagnostic) => {
      const line = diagnostic.start === undefined ? -1 : source.getLineAndCharacterOfPosition(diagnostic.start).line;
      const owner = owners[findOwner(source.text, line)] ?? 'rendered objects';
      return `${owner}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
    });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

function findOwner(text: string, line: number): number {
  const before = text
    .split('\n')
    .slice(0, line + 1)
    .reverse();
  const declaration = before.find((candidate) => /^export const o\d+:/.test(candidate));
  return declaration ? Number(/^export const o(\d+)/.exec(declaration)![1]) : -1;
}
