// The structural schema of a CustomResourceDefinition version (its `openAPIV3Schema`), as apiextensions.k8s.io/v1
// JSONSchemaProps on the wire, and the helpers that pruning, defaulting and validation share.

/** The JSON types a structural schema names; `integer` values are JSON numbers without a fraction. */
export type JsonType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';

/** The keywords of JSONSchemaProps that the API server applies to custom resources. */
export interface JsonSchemaProps {
  type?: JsonType;
  format?: string;
  properties?: Record<string, JsonSchemaProps>;
  additionalProperties?: JsonSchemaProps | boolean;
  items?: JsonSchemaProps;
  required?: string[];
  enum?: unknown[];
  pattern?: string;
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  allOf?: JsonSchemaProps[];
  anyOf?: JsonSchemaProps[];
  oneOf?: JsonSchemaProps[];
  not?: JsonSchemaProps;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
}

/** A decoded JSON object. */
export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON type of a decoded value, `null` included; whole numbers are integers, as Go's decoder makes them int64. */
export function jsonTypeOf(value: unknown): JsonType | 'null' {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as 'object' | 'string' | 'boolean';
}

/** The field path of a property: `spec.source.ref`. */
export function propertyPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** The field path of a list item: `spec.stages[2]`. */
export function itemPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

/** The schema of property `key`, looked up as an own property: `__proto__` or `constructor` is a field name, never Object's. */
export function propertySchema(schema: JsonSchemaProps, key: string): JsonSchemaProps | undefined {
  return schema.properties !== undefined && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
}

/** A member of a JSON object, own properties only. */
export function ownMember(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}
