// Minimal OpenAPI documents. They carry no schemas, only what clients probe: the v3 root lists one document per
// group-version, and each names the PATCH operation of every kind with its `fieldValidation` query parameter.
// Seeing that parameter, client-go (kubectl, helm) leaves validation to the server instead of fetching the
// OpenAPI v2 document as protobuf for client-side validation (the emulator serves it only as JSON).
import { EMULATED_VERSION } from './emulated-version.ts';
import type { EmulatorContext } from './emulator-context.ts';
import type { ResourceType } from './resource-registry.ts';

const info = { title: 'Kubernetes', version: EMULATED_VERSION.gitVersion };

function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

function objectPath(type: ResourceType, version: string): string {
  const namespace = type.namespaced ? '/namespaces/{namespace}' : '';
  return `/${groupVersionPath(type.group, version)}${namespace}/${type.resource}/{name}`;
}

function patchOperation(type: ResourceType, version: string): Record<string, unknown> {
  return {
    'x-kubernetes-group-version-kind': { group: type.group, version, kind: type.kind },
    'x-kubernetes-action': 'patch',
    parameters: [{ name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } }],
    responses: { '200': { description: 'OK' } },
  };
}

/** The OpenAPI v2 document: no paths or definitions. */
export function openApiV2(): unknown {
  return { swagger: '2.0', info, paths: {}, definitions: {} };
}

/** The OpenAPI v3 root: where each served group-version's document is. */
export function openApiV3Root(context: EmulatorContext): unknown {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const type of context.registry.all()) {
    for (const version of type.versions) {
      const path = groupVersionPath(type.group, version);
      paths[path] = { serverRelativeURL: `/openapi/v3/${path}` };
    }
  }
  return { paths };
}

/** The OpenAPI v3 document of one group-version (`api/v1`, `apis/<group>/<version>`), or undefined if not served. */
export function openApiV3Document(context: EmulatorContext, groupVersion: string): unknown {
  const types = context.registry.all().flatMap((type) => type.versions.map((version) => ({ type, version })));
  const served = types.filter(({ type, version }) => groupVersionPath(type.group, version) === groupVersion);
  if (served.length === 0) return undefined;
  const patchable = served.filter(({ type }) => type.verbs.includes('patch'));
  const paths = Object.fromEntries(patchable.map(({ type, version }) => [objectPath(type, version), { patch: patchOperation(type, version) }]));
  return { openapi: '3.0.0', info, paths };
}
