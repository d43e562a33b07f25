// Minimal OpenAPI documents. They carry no schemas, only what clients probe: the v3 root lists one document per
// group-version, and each names the PATCH operation of every kind with its `fieldValidation` query parameter.
// Seeing that parameter, client-go (kubectl, helm) leaves validation to the server; for kinds the emulator does
// not serve it falls back to the protobuf OpenAPI v2 document, whose emptiness skips client-side validation.
import { EMULATED_VERSION } from './emulated-version.ts';
import type { EmulatorContext } from '../emulator-context.ts';
import type { JsonReply } from './http-messages.ts';
import type { ResourceType } from '../objects/resource-registry.ts';

// What kube-apiserver answers client-go's `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`:
// the type named as servers write it (Go's mime parser accepts it), and here an openapi_v2.Document that
// holds only `swagger: "2.0"` (field 1, length-delimited), which makes kubectl skip client-side validation.
const OPENAPI_V2_PROTOBUF_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const SWAGGER_2_ONLY = Uint8Array.of(0x0a, 3, ...new TextEncoder().encode('2.0'));

/** The PATCH operation kube-apiserver documents for a kind: its group-version-kind and `fieldValidation`. */
function patchOf(group: string, version: string, kind: string): Record<string, unknown> {
  return {
    'x-kubernetes-action': 'patch',
    'x-kubernetes-group-version-kind': { group, version, kind },
    parameters: [{ in: 'query', name: 'fieldValidation', schema: { type: 'string', uniqueItems: true } }],
    responses: { '200': { description: 'OK' } },
  };
}

const info = { title: 'Kubernetes', version: EMULATED_VERSION.gitVersion };

function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

function objectPath(type: ResourceType, version: string): string {
  const namespace = type.namespaced ? '/namespaces/{namespace}' : '';
  return `/${groupVersionPath(type.group, version)}${namespace}/${type.resource}/{name}`;
}

/** The OpenAPI v2 document, no paths or definitions: protobuf when `accept` asks for it (client-go does), else JSON. */
export function openApiV2(accept: string): JsonReply {
  if (accept.includes('proto-openapi.spec.v2')) {
    return { status: 200, body: Buffer.from(SWAGGER_2_ONLY), contentType: OPENAPI_V2_PROTOBUF_TYPE };
  }
  return { status: 200, body: { swagger: '2.0', info, paths: {}, definitions: {} } };
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
  const paths = Object.fromEntries(
    patchable.map(({ type, version }) => [
      objectPath(type, version),
      { patch: patchOf(type.group, version, type.kind) },
    ]),
  );
  return { openapi: '3.0.0', info, paths };
}
