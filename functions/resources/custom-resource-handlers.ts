import type { Authorizer } from '../../shared/authz/authorizer.ts';
import { jsonResponse } from '../../shared/http/api-request.ts';
import type { ClusterObjects, ObjectLocation } from '../../shared/resources/cluster-objects.ts';
import { KubernetesStatusError, asKubernetesStatus } from '../../shared/resources/kubernetes-status.ts';
import {
  RESOURCE_OPERATIONS,
  listAllNamespacesOperationId,
  resourceOperationId,
  type PlatformKind,
  type ResourceOperation,
} from '../../shared/resources/platform-kinds.ts';
import type { PlatformObject } from '../../shared/resources/platform-object.ts';
import type { HandlerRequest, RouteHandler } from '../../shared/runtime/function-definition.ts';
import { objectForWrite, parseJsonBody } from './resource-body.ts';
import type { ResourceWrites } from './resource-writes.ts';

// Kubernetes list options the cluster understands; passed through as given.
const LIST_QUERY = ['labelSelector', 'fieldSelector', 'limit', 'continue'];
const PATCH_TYPES = ['application/merge-patch+json', 'application/json-patch+json'];

/** What the handlers of one kind need: the cluster, the authorizer and the kind's writes. */
export interface KindHandlerDependencies {
  objects: ClusterObjects;
  authorizer: Authorizer;
  kind: PlatformKind;
  writes: ResourceWrites;
}

/**
 * The REST handlers of one kind, keyed by operationId. Each authorises the caller first (the
 * admin bypasses; anyone else by SubjectAccessReview on verb, kind, namespace and name), then
 * acts with the API server's own ServiceAccount. Every error is a Kubernetes `Status`.
 */
export function customResourceHandlers(dependencies: KindHandlerDependencies): Record<string, RouteHandler> {
  const { objects, authorizer, kind, writes } = dependencies;
  const authorize = (request: HandlerRequest, operation: ResourceOperation, location: ObjectLocation) =>
    authorizer.authorize(request.principal!, {
      verb: RESOURCE_OPERATIONS[operation],
      group: objects.apiGroup,
      resource: kind.plural,
      ...(location.subresource ? { subresource: location.subresource } : {}),
      ...(location.namespace !== undefined ? { namespace: location.namespace } : {}),
      ...(location.name !== undefined ? { name: location.name } : {}),
    });
  const objectAnswer = (status: number, body: PlatformObject) => jsonResponse(status, writes.present(body));

  const operations: Record<ResourceOperation, (request: HandlerRequest, location: ObjectLocation) => Promise<ReturnType<typeof jsonResponse>>> = {
    async list(request, location) {
      const query = new URLSearchParams();
      for (const name of LIST_QUERY) {
        const value = request.query.get(name);
        if (value !== null) query.set(name, value);
      }
      const limit = query.get('limit');
      if (limit !== null && !/^\d+$/.test(limit)) throw new KubernetesStatusError(400, 'BadRequest', `limit must be a non-negative integer, not "${limit}"`);
      const { body } = await objects.send<{ items?: PlatformObject[] }>({ method: 'GET', path: objects.platformPath(kind, location), query });
      return jsonResponse(200, { ...body, items: (body.items ?? []).map(writes.present) });
    },
    async create(request, location) {
      const object = objectForWrite(parseJsonBody(request), kind, objects.apiGroup, { namespace: location.namespace });
      const { status, body } = await writes.create(location, object);
      return objectAnswer(status, body);
    },
    async get(_request, location) {
      const { body } = await objects.send<PlatformObject>({ method: 'GET', path: objects.platformPath(kind, location) });
      return objectAnswer(200, body);
    },
    async replace(request, location) {
      const object = objectForWrite(parseJsonBody(request), kind, objects.apiGroup, location);
      const { status, body } = await writes.replace(location, object);
      return objectAnswer(status, body);
    },
    async patch(request, location) {
      const { status, body } = await writes.patch(location, parseJsonBody(request), patchType(request));
      return objectAnswer(status, body);
    },
    async delete(request, location) {
      const options = request.body.length > 0 ? parseJsonBody(request) : undefined;
      const { status, body } = await writes.delete(location, options);
      return objectAnswer(status, body);
    },
    getStatus: (request, location) => operations.get(request, location),
    async replaceStatus(request, location) {
      const object = objectForWrite(parseJsonBody(request), kind, objects.apiGroup, location);
      const { status, body } = await objects.send<PlatformObject>({ method: 'PUT', path: objects.platformPath(kind, location), body: object });
      return objectAnswer(status, body);
    },
    async patchStatus(request, location) {
      const { status, body } = await objects.send<PlatformObject>({ method: 'PATCH', path: objects.platformPath(kind, location), body: parseJsonBody(request), contentType: patchType(request) });
      return objectAnswer(status, body);
    },
  };

  const handler = (operation: ResourceOperation, allNamespaces = false): RouteHandler => async (request) => {
    const location: ObjectLocation = {
      ...(kind.namespaced && !allNamespaces ? { namespace: request.params.namespace! } : {}),
      ...(request.params.name !== undefined ? { name: request.params.name } : {}),
      ...(operation.endsWith('Status') ? { subresource: 'status' } : {}),
    };
    try {
      await authorize(request, operation, location);
      return await operations[operation](request, location);
    } catch (error) {
      throw asKubernetesStatus(error);
    }
  };

  const handlers: Record<string, RouteHandler> = {};
  for (const operation of Object.keys(RESOURCE_OPERATIONS) as ResourceOperation[]) handlers[resourceOperationId(kind, operation)] = handler(operation);
  if (kind.namespaced) handlers[listAllNamespacesOperationId(kind)] = handler('list', true);
  return handlers;
}

function patchType(request: HandlerRequest): string {
  const type = (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (!PATCH_TYPES.includes(type)) {
    throw new KubernetesStatusError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${PATCH_TYPES.join(', ')}`);
  }
  return type;
}
