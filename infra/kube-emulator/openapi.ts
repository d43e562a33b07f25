// Minimal OpenAPI documents. They carry no schemas, only what clients probe: the v3 root lists one document per
// group-version, and each names the PATCH operation of every kind with its `fieldValidation` query parameter.
// Seeing that parameter, client-go (kubectl, helm) leaves validation to the server; for kinds the emulator does
// not serve it falls back to the protobuf OpenAPI v2 document, whose emptiness skips client-side validation.
import { EMULATED_VERSION } from './emulated-version.ts';
import type { EmulatorContext } from './emulator-context.ts';
import type { JsonReply } from './http-messages.ts';
import type { ResourceType } from './resource-registry.ts';
import {
  PROTOBUF_V2,
  PROTOBUF_V2_DOCUMENT,
  patchOperation,
  wantsProtobufOpenApiV2,
} from '../../shared/kubernetes/openapi-probes.ts';

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
  if (wantsProtobufOpenApiV2(accept)) return { status: 200, body: PROTOBUF_V2_DOCUMENT, contentType: PROTOBUF_V2 };
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
      { patch: patchOperation({ group: type.group, version, kind: type.kind }) },
    ]),
  );
  return { openapi: '3.0.0', info, paths };
}
