// The uniqueness that `x-kubernetes-list-type: set|map` promises, checked after the schema as apiextensions-apiserver's
// listtype.ValidateListSetsAndMaps does: a repeated set item, or a repeated map key, is a Duplicate value.
import type { FieldError } from '../http/status.ts';
import { isJsonObject, itemPath, ownMember, propertyPath, propertySchema } from './structural-schema.ts';
import type { JsonSchemaProps } from './structural-schema.ts';

// The key of a list-map item: its key fields (or their defaults), as the error prints them.
function mapKey(item: unknown, schema: JsonSchemaProps): Record<string, unknown> {
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  const fields = isJsonObject(item) ? item : {};
  return Object.fromEntries(
    keys.map((key) => [
      key,
      ownMember(fields, key) ?? (schema.items ? propertySchema(schema.items, key)?.default : undefined),
    ]),
  );
}

function duplicateErrors(list: unknown[], schema: JsonSchemaProps, path: string): FieldError[] {
  const listType = schema['x-kubernetes-list-type'];
  if (listType !== 'set' && listType !== 'map') return [];
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  list.forEach((item, index) => {
    const identity = listType === 'map' ? mapKey(item, schema) : item;
    const key = JSON.stringify(identity);
    if (seen.has(key))
      errors.push({ field: itemPath(path, index), type: 'FieldValueDuplicate', value: identity, detail: '' });
    seen.add(key);
  });
  return errors;
}

/** Duplicate items of set and map lists anywhere in a value. */
export function listTypeErrors(value: unknown, schema: JsonSchemaProps, path = ''): FieldError[] {
  if (Array.isArray(value)) {
    const nested = schema.items
      ? value.flatMap((item, index) => listTypeErrors(item, schema.items!, itemPath(path, index)))
      : [];
    return [...nested, ...duplicateErrors(value, schema, path)];
  }
  if (!isJsonObject(value)) return [];
  const additional = isJsonObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  return Object.entries(value).flatMap(([key, item]) => {
    const itemSchema = propertySchema(schema, key) ?? additional;
    return itemSchema ? listTypeErrors(item, itemSchema, propertyPath(path, key)) : [];
  });
}
