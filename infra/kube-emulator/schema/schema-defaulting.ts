// Structural defaulting (apiextensions-apiserver's defaulting.Default): the `default` of a property fills it in when it
// is missing or a `null` the schema does not allow. The walk follows properties, additionalProperties and items, so a
// property is defaulted only where its parent object exists; a defaulted parent then gets its children's defaults.
import { isJsonObject, propertySchema } from './structural-schema.ts';
import type { JsonSchemaProps } from './structural-schema.ts';

// A null that only a default can replace: pruning kept it because the schema has a default for it.
function isNonNullableNull(value: unknown, schema: JsonSchemaProps | undefined): boolean {
  return value === null && schema !== undefined && !schema.nullable;
}

/** Fills in the defaults of `schema` in `value`, in place; defaults are copied, never shared. */
export function applyDefaults(value: unknown, schema: JsonSchemaProps | undefined): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      // As the server does, the replaced null itself is walked, not the default put in its place.
      if (isNonNullableNull(item, schema.items) && schema.items!.default !== undefined)
        value[index] = structuredClone(schema.items!.default);
      applyDefaults(item, schema.items);
    });
    return;
  }
  if (!isJsonObject(value)) return;
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (property.default === undefined) continue;
    if (!Object.hasOwn(value, key) || isNonNullableNull(value[key], property))
      value[key] = structuredClone(property.default);
  }
  const additional = isJsonObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  for (const [key, item] of Object.entries(value)) {
    const property = propertySchema(schema, key);
    if (property) {
      applyDefaults(item, property);
    } else if (additional) {
      if (isNonNullableNull(item, additional) && additional.default !== undefined)
        value[key] = structuredClone(additional.default);
      applyDefaults(item, additional);
    }
  }
}
