import { noteForAudit } from '../../../shared/domain/audit/audit-annotations.ts';
import { DECISION_ANNOTATION, REASON_ANNOTATION } from '../../../shared/domain/audit/audit-event.ts';
import type { ResourceAttributes } from '../../../shared/authz/authorizer.ts';
import { ApiError } from '../../../shared/base/http/api-error.ts';
import type { ClusterObjects, ObjectLocation } from '../../../shared/domain/resources/cluster-objects.ts';
import type { PlatformKind } from '../../../shared/contract/kinds/platform-kinds.ts';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import { JSON_PATCH, patchedObject, recomputedOnConflict, resultAsJsonPatch } from './patch-results.ts';
import { objectForWrite } from './resource-body.ts';
import type { ResourceWrites, Writer } from './resource-writes.ts';

/**
 * Judges a write of the object itself on its result against the object stored before it (undefined: the write
 * creates it, a re-created object included): resolves to let it through, throws (a 403) to refuse it.
 */
export type ResultJudge = (stored: PlatformObject | undefined, result: PlatformObject) => Promise<void>;

/**
 * `writes` with every write of the object itself (create, PUT, merge and JSON patch, server-side apply) judged
 * on its result before anything is sent (issue 45: a right a field's value needs holds whatever the write's
 * shape). The result judged is the one written: a patch is computed here from the stored object and sent as
 * that result, an apply is asked of the cluster as a dry run; both, and a PUT, are pinned to the
 * resourceVersion judged (recomputed when someone wrote in between), so no concurrent write slips under the
 * judgement. The status subresource and deletes are passed through.
 */
export function judgedWrites(
  objects: ClusterObjects,
  kind: PlatformKind,
  writes: ResourceWrites,
  judge: ResultJudge,
): ResourceWrites {
  const path = (location: ObjectLocation) => objects.platformPath(kind, location);
  const find = (location: ObjectLocation) => objects.find<PlatformObject>(path(location));
  const read = async (location: ObjectLocation) =>
    (await objects.send<PlatformObject>({ method: 'GET', path: path(location) })).body;
  const pinnedTo = (object: PlatformObject, stored: PlatformObject | undefined): PlatformObject =>
    stored === undefined || object.metadata.resourceVersion !== undefined
      ? object
      : { ...object, metadata: { ...object.metadata, resourceVersion: stored.metadata.resourceVersion } };

  return {
    ...writes,
    async create(location, object, options) {
      await judge(undefined, object);
      return writes.create(location, object, options);
    },
    async replace(location, object, options) {
      const stored = await find(location);
      await judge(stored, object);
      return writes.replace(location, pinnedTo(object, stored), options);
    },
    patch(location, patch, contentType, options) {
      return recomputedOnConflict(
        () => read(location),
        async (current) => {
          const result = objectForWrite(
            patchedObject(current, patch, contentType, kind, location.name!),
            kind,
            objects.apiGroup,
            { namespace: location.namespace, name: location.name },
          );
          await judge(current, result);
          return {
            result,
            send: () => writes.patch(location, resultAsJsonPatch(current, result), JSON_PATCH, options),
          };
        },
      );
    },
    async apply(location, configuration, options) {
      const stored = await find(location);
      const pinned = pinnedTo(configuration, stored);
      const dryRun = new URLSearchParams(options);
      dryRun.set('dryRun', 'All');
      const dry = await writes.apply(location, pinned, dryRun);
      await judge(stored, dry.body);
      return options.has('dryRun') ? dry : writes.apply(location, pinned, options);
    },
  };
}

/** Requires `attributes` of the writer for what its write results in; a refusal is noted for the audit trail. */
export async function requireForResult(writer: Writer, attributes: ResourceAttributes): Promise<void> {
  try {
    await writer.authorization.requireAlso(attributes);
  } catch (error) {
    if (error instanceof ApiError) {
      // The chain allowed the write's verb; the write as a whole is refused for want of this right.
      noteForAudit(writer, DECISION_ANNOTATION, 'forbid');
      noteForAudit(writer, REASON_ANNOTATION, error.message);
    }
    throw error;
  }
}
