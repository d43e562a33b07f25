import { JsonPatchError, applyJsonPatch, applyMergePatch } from '../../../shared/base/json/patches.ts';
import { KubernetesStatusError } from '../../../shared/base/http/api-error.ts';
import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import type { PlatformKind } from '../../../shared/contract/kinds/platform-kinds.ts';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';

// A write judged on its result (a VariableSet's sensitive values, a Rollout's approvals) is computed on the
// server from the stored object, and what is sent is that result, pinned to the resourceVersion it was
// computed from: the cluster cannot apply it to anything else.

export const JSON_PATCH = 'application/json-patch+json';
// How often a result is recomputed when the object changed between reading it and writing the result.
const ATTEMPTS = 5;

/** The stored object with a merge or JSON patch applied, as the cluster would apply it; 422 when it does not apply. */
export function patchedObject(
  current: PlatformObject,
  patch: unknown,
  contentType: string,
  kind: PlatformKind,
  name: string,
): unknown {
  try {
    return contentType === JSON_PATCH ? applyJsonPatch(current, patch) : applyMergePatch(current, patch);
  } catch (error) {
    if (error instanceof JsonPatchError) throw apiError('Invalid', error.message, {}, { name, kind: kind.kind });
    throw error;
  }
}

/**
 * The JSON patch that turns `current` into `result` on the cluster: metadata (with the resourceVersion it was
 * computed from, so a concurrent write makes it a 409 instead of being overwritten) and `field`, the spec for
 * the object itself, the status through the status subresource.
 */
export function resultAsJsonPatch(
  current: PlatformObject,
  result: PlatformObject,
  field: 'spec' | 'status' = 'spec',
): unknown[] {
  const written =
    result[field] === undefined
      ? current[field] === undefined
        ? []
        : [{ op: 'remove', path: `/${field}` }]
      : [{ op: 'add', path: `/${field}`, value: result[field] }];
  return [{ op: 'add', path: '/metadata', value: result.metadata }, ...written];
}

/** One attempt of a judged write: the result computed from the object as read, and how to send it. */
export interface ComputedWrite<T> {
  result: PlatformObject;
  send(): Promise<T>;
}

/**
 * Reads the object, computes the write's result from it and sends it; when someone wrote in between (409),
 * reads and computes again, up to ATTEMPTS times, unless the caller pinned a resourceVersion of their own
 * (the result's differs from the one read): then the 409 is the caller's answer.
 */
export async function recomputedOnConflict<T>(
  read: () => Promise<PlatformObject>,
  compute: (current: PlatformObject) => ComputedWrite<T> | Promise<ComputedWrite<T>>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const current = await read();
    const { result, send } = await compute(current);
    try {
      return await send();
    } catch (error) {
      const pinnedByCaller = result.metadata.resourceVersion !== current.metadata.resourceVersion;
      if (!(error instanceof KubernetesStatusError && error.status === 409) || pinnedByCaller || attempt === ATTEMPTS)
        throw error;
    }
  }
}
