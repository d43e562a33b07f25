// Structural pruning (apiextensions-apiserver's pruning.PruneWithOptions): fields a custom resource's schema does not
// declare are dropped, unless `x-kubernetes-preserve-unknown-fields` keeps them. The root and every
// `x-kubernetes-embedded-resource` object keep apiVersion and kind, and their metadata keeps ObjectMeta's fields only.
// Also, as PruneNonNullableNullsWithoutDefaults does, a property set to null that is not `nullable` and has no `default`
// is dropped (one with a default is left for defaulting to replace).
import { isJsonObject, itemPath, propertyPath, propertySchema } from './structural-schema.ts';
import type { JsonObject, JsonSchemaProps } from './structural-schema.ts';

// metav1.ObjectMeta's JSON fields; the decoder drops any other field of metadata.
const OBJECT_META_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

const TYPE_META_FIELDS = new Set(['apiVersion', 'kind']);

function pruneMetadata(metadata: JsonObject, path: string, pruned: string[]): void {
  for (const key of Object.keys(metadata)) {
    if (OBJECT_META_FIELDS.has(key)) continue;
    delete metadata[key];
    pruned.push(propertyPath(path, key));
  }
}

function pruneObject(
  object: JsonObject,
  schema: JsonSchemaProps,
  path: string,
  pruned: string[],
  isResource: boolean,
): void {
  const additional = isJsonObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  const keepsUnknown = schema['x-kubernetes-preserve-unknown-fields'] === true || schema.additionalProperties === true;
  for (const [key, value] of Object.entries(object)) {
    const fieldPath = propertyPath(path, key);
    if (isResource && TYPE_META_FIELDS.has(key)) continue;
    if (isResource && key === 'metadata') {
      if (isJsonObject(value)) pruneMetadata(value, fieldPath, pruned);
      continue;
    }
    const fieldSchema = propertySchema(schema, key) ?? additional;
    // A null where the schema allows none is dropped, not refused, unless a default will replace it.
    if (value === null && fieldSchema && !fieldSchema.nullable && fieldSchema.default === undefined) delete object[key];
    else if (fieldSchema) pruneValue(value, fieldSchema, fieldPath, pruned);
    else if (!keepsUnknown) {
      delete object[key];
      pruned.push(fieldPath);
    }
  }
}

function pruneValue(value: unknown, schema: JsonSchemaProps, path: string, pruned: string[]): void {
  if (Array.isArray(value)) {
    if (schema.items) {
      for (const [index, item] of value.entries()) pruneValue(item, schema.items, itemPath(path, index), pruned);
    }
  } else if (isJsonObject(value)) {
    pruneObject(value, schema, path, pruned, schema['x-kubernetes-embedded-resource'] === true);
  }
}

/** Drops the fields of a custom resource that its schema does not declare; answers their paths (`spec.x`). */
export function pruneUnknownFields(object: JsonObject, schema: JsonSchemaProps): string[] {
  const pruned: string[] = [];
  pruneObject(object, schema, '', pruned, true);
  return pruned;
}
