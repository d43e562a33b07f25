import { createHash } from 'node:crypto';
import { patchOperation } from '../../../shared/base/kubernetes/openapi-probes.ts';
import { API_VERSION } from '../../../shared/contract/kinds/platform-kinds.ts';
import type { KindDescription } from '../../../shared/contract/kinds/platform-kind-descriptions.ts';

// The Kubernetes-style OpenAPI documents of the platform's kinds, from the CRD schemas: what `kubectl explain`
// reads and what tells `kubectl apply` that the server validates fields (the PATCH operation's `fieldValidation`).

/** `dev.platform.v1alpha1.Workspace`: Kubernetes names definitions by the reversed group. */
function definitionName(apiGroup: string, kind: string): string {
  return `${apiGroup.split('.').reverse().join('.')}.${API_VERSION}.${kind}`;
}

function groupVersionKind(apiGroup: string, kind: string) {
  return { group: apiGroup, version: API_VERSION, kind };
}

/** The schemas of every kind and its list, tagged with their group-version-kind; `$ref`s point under `refBase`. */
function definitions(apiGroup: string, kinds: KindDescription[], refBase: string): Record<string, unknown> {
  const entries = kinds.flatMap(({ kind, schema }) => {
    const name = definitionName(apiGroup, kind.kind);
    const list = {
      type: 'object',
      description: `A list of ${kind.kind}s.`,
      required: ['items'],
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'object', description: 'Standard list metadata.' },
        items: { type: 'array', items: { $ref: `${refBase}${name}` } },
      },
      'x-kubernetes-group-version-kind': [groupVersionKind(apiGroup, `${kind.kind}List`)],
    };
    return [
      [name, { ...schema, 'x-kubernetes-group-version-kind': [groupVersionKind(apiGroup, kind.kind)] }],
      [`${name}List`, list],
    ];
  });
  return Object.fromEntries(entries);
}

function operations(apiGroup: string, kinds: KindDescription[]): Record<string, unknown> {
  const base = `/apis/${apiGroup}/${API_VERSION}`;
  const paths: Record<string, unknown> = {};
  for (const { kind } of kinds) {
    const gvk = groupVersionKind(apiGroup, kind.kind);
    const collection = kind.namespaced ? `${base}/namespaces/{namespace}/${kind.plural}` : `${base}/${kind.plural}`;
    const tagged = (action: string, operationId: string) => ({
      operationId,
      'x-kubernetes-group-version-kind': gvk,
      'x-kubernetes-action': action,
      responses: { '200': { description: 'OK' } },
    });
    paths[collection] = { get: tagged('list', `list${kind.kind}s`), post: tagged('post', `create${kind.kind}`) };
    paths[`${collection}/{name}`] = {
      get: tagged('get', `read${kind.kind}`),
      put: tagged('put', `replace${kind.kind}`),
      delete: tagged('delete', `delete${kind.kind}`),
      patch: patchOperation(gvk, { operationId: `patch${kind.kind}` }),
    };
  }
  return paths;
}

const info = (version: string) => ({ title: 'Platform API', version });

/** `GET /openapi/v2` as JSON (client-go asks for protobuf, answered separately). */
export function openApiV2Document(
  apiGroup: string,
  kinds: KindDescription[],
  version: string,
): Record<string, unknown> {
  return {
    swagger: '2.0',
    info: info(version),
    paths: operations(apiGroup, kinds),
    definitions: definitions(apiGroup, kinds, '#/definitions/'),
  };
}

/** `GET /openapi/v3/apis/<group>/v1alpha1`. */
export function openApiV3GroupDocument(
  apiGroup: string,
  kinds: KindDescription[],
  version: string,
): Record<string, unknown> {
  return {
    openapi: '3.0.0',
    info: info(version),
    paths: operations(apiGroup, kinds),
    components: { schemas: definitions(apiGroup, kinds, '#/components/schemas/') },
  };
}

/** `GET /openapi/v3`: where the group's document is, with a hash of it so clients cache it per content. */
export function openApiV3Root(apiGroup: string, groupDocument: Record<string, unknown>): Record<string, unknown> {
  const path = `apis/${apiGroup}/${API_VERSION}`;
  const hash = createHash('sha512').update(JSON.stringify(groupDocument)).digest('hex').toUpperCase();
  return { paths: { [path]: { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` } } };
}
