import type { AuthorizedObjects } from '../../../shared/authz/authorized-objects.ts';
import type { ObjectLocation } from '../../../shared/domain/resources/cluster-objects.ts';
import type { PlatformKind } from '../../../shared/contract/kinds/platform-kinds.ts';
import type { ResourceWrites } from './resource-writes.ts';

/**
 * A kind's writes bound to what the request was authorized for: each write is checked, as the call it
 * sends for the object (POST to the collection, PUT, PATCH or DELETE of the item), against the
 * request's decision before it runs; a write that was not authorized is a bug and throws. What a
 * kind does besides (a Project's namespace, a VariableSet's Secret) follows from the authorized write.
 */
export function authorizedWrites(
  writes: ResourceWrites,
  cluster: AuthorizedObjects,
  kind: PlatformKind,
): ResourceWrites {
  const item = (method: string, location: ObjectLocation) =>
    cluster.requireCall({ method, path: cluster.platformPath(kind, location) });
  return {
    create(location, object, options) {
      item('POST', { namespace: location.namespace });
      return writes.create(location, object, options);
    },
    replace(location, object, options) {
      item('PUT', location);
      return writes.replace(location, object, options);
    },
    patch(location, patch, contentType, options) {
      item('PATCH', location);
      return writes.patch(location, patch, contentType, options);
    },
    // An apply without a resourceVersion precondition may create the object: it needs `create` too.
    apply(location, configuration, options) {
      const patch = item('PATCH', location);
      if (configuration.metadata.resourceVersion === undefined) cluster.require({ ...patch, verb: 'create' });
      return writes.apply(location, configuration, options);
    },
    delete(location, options) {
      item('DELETE', location);
      return writes.delete(location, options);
    },
    replaceStatus(location, object, options) {
      item('PUT', location);
      return writes.replaceStatus(location, object, options);
    },
    patchStatus(location, patch, contentType, options) {
      item('PATCH', location);
      return writes.patchStatus(location, patch, contentType, options);
    },
    present: writes.present,
  };
}
