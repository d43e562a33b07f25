import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import { AuthorizedObjects } from '../../../shared/authz/authorized-objects.ts';
import { jsonResponse, type ApiResponse } from '../../../shared/base/http/api-request.ts';
import type { ClusterObjects, ObjectLocation } from '../../../shared/domain/resources/cluster-objects.ts';
import { platformKindDescriptions } from '../../../shared/contract/kinds/platform-kind-descriptions.ts';
import {
  RESOURCE_OPERATIONS,
  listAllNamespacesOperationId,
  resourceOperationId,
  type PlatformKind,
  type ResourceOperation,
} from '../../../shared/contract/kinds/platform-kinds.ts';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import type { ResourceRoute } from '../../../shared/contract/routes/resource-routes.ts';
import type { RouteHandler } from '../../../shared/server/runtime/function-definition.ts';
import {
  generatedRouteHandlers,
  type RouteRequest,
  type TypedHandler,
} from '../../../shared/server/runtime/typed-handlers.ts';
import { bodyMediaType, objectForWrite, parseRequestBody } from '../kinds/resource-body.ts';
import { watchResponse } from '../kubernetes/resource-watch.ts';
import { readBearerToken } from '../../../shared/auth/bearer-token.ts';
import { releaseWhenCallerLeaves, type StreamSessions } from '../../../shared/domain/streams/stream-sessions.ts';
import { DRY_RUN_ANNOTATION, nameForAudit, noteForAudit } from '../../../shared/domain/audit/audit-annotations.ts';
import { deleteOptions } from '../kubernetes/delete-options.ts';
import { APPLY_PATCH, type ResourceWrites, type Writer } from '../kinds/resource-writes.ts';
import { authorizedWrites } from '../kinds/authorized-writes.ts';
import {
  includeObjectOption,
  requestedTableVersion,
  requireAnswerableAccept,
  toTable,
} from '../kubernetes/table-output.ts';
import { writeOptions } from '../kinds/write-options.ts';

// Kubernetes list and watch options the cluster understands; passed through as given (after the route's query
// schema), for the cluster to apply or refuse: one left behind would be answered as if never asked
// (`resourceVersionMatch=Exact` with the current list; `sendInitialEvents` with no end-of-initial-events bookmark).
const READ_QUERY = ['labelSelector', 'fieldSelector', 'resourceVersion', 'resourceVersionMatch', 'timeoutSeconds'];
const LIST_QUERY = [...READ_QUERY, 'limit', 'continue'];
const WATCH_QUERY = [...READ_QUERY, 'allowWatchBookmarks', 'sendInitialEvents'];
const PATCH_TYPES = ['application/merge-patch+json', 'application/json-patch+json', APPLY_PATCH];
const OBJECT_TYPES = ['application/json', 'application/yaml'];

/** What the handlers of one kind need: the cluster (reached only as each request was authorized) and the kind's writes. */
export interface KindHandlerDependencies {
  objects: ClusterObjects;
  kind: PlatformKind;
  /** The kind's writes for one request (a Rollout's judge its approvals by who writes). */
  writes: (writer: Writer) => ResourceWrites;
  /** Watches held open, each ended when the credential that opened it ends. */
  watchSessions: StreamSessions;
}

type KindRequest = RouteRequest<ResourceRoute>;

/** What one request may touch: the object (or collection) it was authorized on, through the cluster bound to that decision. */
interface Authorized {
  location: ObjectLocation;
  cluster: AuthorizedObjects;
  /** The kind's writes, each checked against the decision (a dry run's follow-ups are dry runs too). */
  writes: ResourceWrites;
}
type Operation = (request: KindRequest, authorized: Authorized) => Promise<ApiResponse>;

/**
 * The REST handlers of one kind, keyed by operationId. The chain has authorized the caller (the
 * admin bypasses; anyone else by SubjectAccessReview on verb, kind, namespace and name) before they
 * run; they act with the API server's own ServiceAccount, through a client bound to that decision.
 * Every error is a Kubernetes `Status`. They speak what kubectl sends: Tables, YAML bodies, watches,
 * server-side apply and dry runs.
 */
export function customResourceHandlers(dependencies: KindHandlerDependencies): Record<string, RouteHandler> {
  const { objects, kind } = dependencies;
  const description = async () =>
    (await platformKindDescriptions(objects.apiGroup)).find((candidate) => candidate.kind === kind)!;
  /**
   * An object, or a Table of it when kubectl asked for one, with the cluster's warnings about the
   * write: `fieldValidation=Warn` takes effect only if the caller hears them (kubectl prints each).
   */
  const objectAnswer = async (
    request: KindRequest,
    { writes }: Authorized,
    status: number,
    body: PlatformObject,
    warnings: string[] = [],
  ): Promise<ApiResponse> => {
    const shown = writes.present(body);
    const headers = warningHeaders(warnings);
    const version = requestedTableVersion(request.headers.accept ?? '');
    if (!version || !shown.metadata?.name) return jsonResponse(status, shown, headers);
    return jsonResponse(
      status,
      toTable(await description(), [shown], {}, { version, includeObject: includeObjectOption(request.query) }),
      headers,
    );
  };

  /** A merge or JSON patch of the object or of its status, by `write`. */
  const patched = async (
    request: KindRequest,
    authorized: Authorized,
    write: ResourceWrites['patch'],
  ): Promise<ApiResponse> => {
    const type = patchType(request);
    const options = writeOptions(request.query, 'patch');
    const { status, body, warnings } = await write(authorized.location, parseRequestBody(request), type, options);
    return objectAnswer(request, authorized, status, body, warnings);
  };

  const operations: Record<ResourceOperation, Operation> = {
    async list(request, { location, cluster, writes }) {
      const watching = request.authorization.resource.verb === 'watch';
      const query = passedOn(request.input.query(), watching ? WATCH_QUERY : LIST_QUERY);
      const version = requestedTableVersion(request.headers.accept ?? '');
      const table = version ? { version, includeObject: includeObjectOption(request.query) } : undefined;
      const path = cluster.platformPath(kind, location);
      if (watching) {
        const credential = await dependencies.watchSessions.open(request.principal, readBearerToken(request, false)!);
        // A caller gone before the stream starts never runs its relay: free the slot here too.
        releaseWhenCallerLeaves(credential, request.signal);
        try {
          return await watchResponse({
            objects: cluster,
            description: await description(),
            path,
            query,
            present: writes.present,
            table,
            credential,
            signal: request.signal,
          });
        } catch (error) {
          credential.release();
          throw error;
        }
      }
      const { body } = await cluster.send<{ metadata?: Record<string, unknown>; items?: PlatformObject[] }>({
        method: 'GET',
        path,
        query,
      });
      const items = (body.items ?? []).map(writes.present);
      if (table) return jsonResponse(200, toTable(await description(), items, body.metadata ?? {}, table));
      return jsonResponse(200, { ...body, items });
    },
    async create(request, authorized) {
      requireObjectType(request);
      const options = writeOptions(request.query, 'create');
      const object = objectForWrite(parseRequestBody(request), kind, objects.apiGroup, {
        namespace: authorized.location.namespace,
      });
      // The path names only the collection: the event names the object, as kube-apiserver's does.
      nameForAudit(request, object.metadata);
      const { status, body, warnings } = await authorized.writes.create(authorized.location, object, options);
      nameForAudit(request, body.metadata);
      return objectAnswer(request, authorized, status, body, warnings);
    },
    async get(request, authorized) {
      const { cluster, location } = authorized;
      const { body } = await cluster.send<PlatformObject>({
        method: 'GET',
        path: cluster.platformPath(kind, location),
      });
      return objectAnswer(request, authorized, 200, body);
    },
    async replace(request, authorized) {
      requireObjectType(request);
      const options = writeOptions(request.query, 'update');
      const object = objectForWrite(parseRequestBody(request), kind, objects.apiGroup, authorized.location);
      const { status, body, warnings } = await authorized.writes.replace(authorized.location, object, options);
      return objectAnswer(request, authorized, status, body, warnings);
    },
    patch: (request, authorized) => patched(request, authorized, authorized.writes.patch),
    // The kind's writes make a dry run's follow-ups (a namespace, a Secret) dry runs too.
    async delete(request, authorized) {
      const body = request.body.length > 0 ? parseRequestBody(request) : undefined;
      const options = deleteOptions(request.query, body);
      // The audit filter sees `?dryRun=All`; a dry run asked in the body only the handler knows.
      if (options.dryRun) noteForAudit(request, DRY_RUN_ANNOTATION, 'true');
      const { status, body: deleted } = await authorized.writes.delete(authorized.location, options);
      return objectAnswer(request, authorized, status, deleted);
    },
    getStatus: (request, authorized) => operations.get(request, authorized),
    async replaceStatus(request, authorized) {
      const options = writeOptions(request.query, 'update');
      const object = objectForWrite(parseRequestBody(request), kind, objects.apiGroup, authorized.location);
      const { status, body, warnings } = await authorized.writes.replaceStatus(authorized.location, object, options);
      return objectAnswer(request, authorized, status, body, warnings);
    },
    async patchStatus(request, authorized) {
      if (bodyMediaType(request) === APPLY_PATCH)
        throw apiError(
          'UnsupportedMediaType',
          'server-side apply of the status subresource is not supported; use a merge or JSON patch',
        );
      return patched(request, authorized, authorized.writes.patchStatus);
    },
  };

  /**
   * Server-side apply, authorized by the chain as `patch`, and here also as `create` (by the same
   * authorizer) when the object does not exist. When it exists and `create` was not checked, its
   * resourceVersion goes with the apply as a precondition, so the cluster cannot create it in
   * between: what is sent is what was authorized.
   */
  const apply: Operation = async (request, authorized) => {
    const { location, cluster } = authorized;
    const options = writeOptions(request.query, 'apply');
    const configuration = objectForWrite(parseRequestBody(request), kind, objects.apiGroup, location);
    const existing = await cluster.find<PlatformObject>(cluster.platformPath(kind, location));
    if (!existing) await request.authorization.authorizeAlso('create');
    else configuration.metadata.resourceVersion ??= existing.metadata.resourceVersion;
    const { status, body, warnings } = await authorized.writes.apply(location, configuration, options);
    return objectAnswer(request, authorized, status, body, warnings);
  };

  // The object is the one the chain authorized (namespace and name from the path); a namespaced
  // kind's routes name `{namespace}`, except the list across every namespace.
  const handler =
    (operation: ResourceOperation): TypedHandler<ResourceRoute> =>
    async (request) => {
      const { namespace, name, subresource } = request.authorization.resource;
      const cluster = new AuthorizedObjects(objects, request.authorization, request.deadline);
      const authorized: Authorized = {
        location: {
          ...(namespace !== undefined ? { namespace } : {}),
          ...(name !== undefined ? { name } : {}),
          ...(subresource !== undefined ? { subresource } : {}),
        },
        cluster,
        writes: authorizedWrites(dependencies.writes(request), cluster, kind),
      };
      requireAnswerableAccept(request.headers.accept);
      return (operation === 'patch' && bodyMediaType(request) === APPLY_PATCH ? apply : operations[operation])(
        request,
        authorized,
      );
    };

  const handlers: Record<string, TypedHandler<ResourceRoute>> = {};
  for (const operation of Object.keys(RESOURCE_OPERATIONS) as ResourceOperation[])
    handlers[resourceOperationId(kind, operation)] = handler(operation);
  if (kind.namespaced) handlers[listAllNamespacesOperationId(kind)] = handler('list');
  return generatedRouteHandlers(handlers);
}

// What a response header may hold (Node refuses anything else); a warning that could not be sent as it came is left out.
const HEADER_TEXT = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The cluster's warnings as the caller's `Warning` headers, each as the cluster worded it (`299 - "…"`). */
function warningHeaders(warnings: string[]): Record<string, string[]> {
  const sendable = warnings.filter((warning) => HEADER_TEXT.test(warning));
  return sendable.length > 0 ? { warning: sendable } : {};
}

function passedOn(query: Record<string, unknown>, names: string[]): URLSearchParams {
  const passed = new URLSearchParams();
  for (const name of names) {
    const value = query[name];
    if (typeof value === 'string') passed.set(name, value);
  }
  return passed;
}

function patchType(request: KindRequest): string {
  const type = bodyMediaType(request);
  if (!PATCH_TYPES.includes(type)) {
    throw apiError(
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${PATCH_TYPES.join(', ')}`,
    );
  }
  return type;
}

function requireObjectType(request: KindRequest): void {
  const type = bodyMediaType(request);
  if (type !== '' && !OBJECT_TYPES.includes(type)) {
    throw apiError(
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${OBJECT_TYPES.join(', ')}`,
    );
  }
}
