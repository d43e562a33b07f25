import type { ClusterObjects, ObjectLocation } from '../../shared/resources/cluster-objects.ts';
import type { PlatformKind } from '../../shared/resources/platform-kinds.ts';
import type { PlatformObject } from '../../shared/resources/platform-object.ts';

/** A cluster answer to hand back to the caller: its status code and object. */
export interface WriteAnswer {
  status: number;
  body: PlatformObject;
}

/**
 * How one kind is written to the cluster (with the API server's own ServiceAccount, after the
 * caller was authorised) and shown to callers. Kinds with side effects (a Project's namespace,
 * a VariableSet's Secret) wrap the plain writes.
 */
export interface ResourceWrites {
  create(location: ObjectLocation, object: PlatformObject): Promise<WriteAnswer>;
  replace(location: ObjectLocation, object: PlatformObject): Promise<WriteAnswer>;
  patch(location: ObjectLocation, patch: unknown, contentType: string): Promise<WriteAnswer>;
  delete(location: ObjectLocation, options: unknown): Promise<WriteAnswer>;
  /** The object as callers may see it. */
  present(object: PlatformObject): PlatformObject;
}

/** Writes that pass straight through to the cluster. */
export function plainWrites(objects: ClusterObjects, kind: PlatformKind): ResourceWrites {
  const path = (location: ObjectLocation) => objects.platformPath(kind, location);
  return {
    create: (location, object) => objects.send<PlatformObject>({ method: 'POST', path: path({ namespace: location.namespace }), body: object }),
    replace: (location, object) => objects.send<PlatformObject>({ method: 'PUT', path: path(location), body: object }),
    patch: (location, patch, contentType) => objects.send<PlatformObject>({ method: 'PATCH', path: path(location), body: patch, contentType }),
    delete: (location, options) => objects.send<PlatformObject>({ method: 'DELETE', path: path(location), body: options }),
    present: (object) => object,
  };
}
