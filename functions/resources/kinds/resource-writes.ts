import type { Principal } from '../../../shared/auth/principal.ts';
import type { AuthorizationDecision } from '../../../shared/authz/authorization-decision.ts';
import type { ClusterObjects, ObjectLocation } from '../../../shared/domain/resources/cluster-objects.ts';
import type { PlatformKind } from '../../../shared/contract/kinds/platform-kinds.ts';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import { isDeleteDryRun, type DeleteOptions } from '../kubernetes/delete-options.ts';

/** A cluster answer to hand back to the caller: its status code, object and warnings. */
export interface WriteAnswer {
  status: number;
  body: PlatformObject;
  /** The cluster's `Warning` headers for the write (`fieldValidation=Warn`), for the caller. */
  warnings?: string[];
}

/** The write options passed on to the cluster as given and checked (fieldManager, fieldValidation, force, dryRun). */
export type WriteOptions = URLSearchParams;

export const APPLY_PATCH = 'application/apply-patch+yaml';

/**
 * How one kind is written to the cluster (with the API server's own ServiceAccount, after the
 * caller was authorized) and shown to callers. Kinds with side effects (a Project's namespace,
 * a VariableSet's Secret) wrap the plain writes.
 */
export interface ResourceWrites {
  create(location: ObjectLocation, object: PlatformObject, options: WriteOptions): Promise<WriteAnswer>;
  replace(location: ObjectLocation, object: PlatformObject, options: WriteOptions): Promise<WriteAnswer>;
  patch(location: ObjectLocation, patch: unknown, contentType: string, options: WriteOptions): Promise<WriteAnswer>;
  /** Server-side apply of a configuration (already checked against the URL) as `options`' fieldManager. */
  apply(location: ObjectLocation, configuration: PlatformObject, options: WriteOptions): Promise<WriteAnswer>;
  /** A delete with its checked options (a dry run included), sent as the body and, for a dry run, also as `?dryRun=All`. */
  delete(location: ObjectLocation, options: DeleteOptions): Promise<WriteAnswer>;
  /** A replace through the status subresource (`location` names it). */
  replaceStatus(location: ObjectLocation, object: PlatformObject, options: WriteOptions): Promise<WriteAnswer>;
  /** A merge or JSON patch through the status subresource (`location` names it). */
  patchStatus(
    location: ObjectLocation,
    patch: unknown,
    contentType: string,
    options: WriteOptions,
  ): Promise<WriteAnswer>;
  /** The object as callers may see it. */
  present(object: PlatformObject): PlatformObject;
}

/**
 * The request a kind's writes are made for, as a kind that judges its writes needs it (a Rollout's approvals):
 * who writes, what the chain decided for them, and the request's audit notes.
 */
export interface Writer {
  principal: Principal;
  authorization: AuthorizationDecision;
  auditAnnotations?: Record<string, string>;
}

/** The query that makes a follow-up write (a namespace, a Secret) a dry run when the caller's write is one. */
export function dryRunQuery(dryRun: boolean): URLSearchParams {
  return new URLSearchParams(dryRun ? { dryRun: 'All' } : {});
}

/** Writes that pass straight through to the cluster. */
export function plainWrites(objects: ClusterObjects, kind: PlatformKind): ResourceWrites {
  const path = (location: ObjectLocation) => objects.platformPath(kind, location);
  return {
    create: (location, object, query) =>
      objects.send<PlatformObject>({
        method: 'POST',
        path: path({ namespace: location.namespace }),
        body: object,
        query,
      }),
    replace: (location, object, query) =>
      objects.send<PlatformObject>({ method: 'PUT', path: path(location), body: object, query }),
    patch: (location, patch, contentType, query) =>
      objects.send<PlatformObject>({ method: 'PATCH', path: path(location), body: patch, contentType, query }),
    // JSON is YAML: the configuration goes as JSON under the apply media type.
    apply: (location, configuration, query) =>
      objects.send<PlatformObject>({
        method: 'PATCH',
        path: path(location),
        body: configuration,
        contentType: APPLY_PATCH,
        query,
      }),
    // The dry run goes in the query too: kube-apiserver reads the body's options, a proxy may only see the query.
    delete: (location, options) =>
      objects.send<PlatformObject>({
        method: 'DELETE',
        path: path(location),
        body: options,
        query: dryRunQuery(isDeleteDryRun(options)),
      }),
    replaceStatus: (location, object, query) =>
      objects.send<PlatformObject>({ method: 'PUT', path: path(location), body: object, query }),
    patchStatus: (location, patch, contentType, query) =>
      objects.send<PlatformObject>({ method: 'PATCH', path: path(location), body: patch, contentType, query }),
    present: (object) => object,
  };
}
