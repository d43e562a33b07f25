/**
 * What a request may carry is what storage can hold. PostgreSQL refuses a text value with the NUL
 * character (U+0000, `\u0000` in JSON) and an integer outside the range of its column; either would
 * reach the database as a 500. Rather than each field saying so, every request schema of the route
 * table passes through `storableSchema`, which adds the refusal to every string and every integer it
 * holds (at any depth), so a field added later is covered without anyone remembering to.
 */

type Schema = Record<string, unknown>;

/** A string without NUL: what a `text` column (and a Kubernetes name or label) can hold. */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';

/** What a refusal of NUL says after the field's name. */
export const NUL_REFUSAL = 'must not contain the NUL character (U+0000)';

/**
 * The range of a PostgreSQL `integer` (int4). Every integer a client sends is held to it, also the
 * log line numbers whose column is `bigint`: the statements bind them as `integer` parameters
 * (`$3 - 1`), and two thousand million lines is no log a run writes.
 */
export const STORABLE_INTEGER_RANGE = { minimum: -(2 ** 31), maximum: 2 ** 31 - 1 } as const;

// The keywords whose value is one subschema, and those whose value is a list or a map of them.
const SUBSCHEMA_KEYWORDS = [
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
];
const SUBSCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];

// One storable copy per schema: a schema shared by many routes (the list query) stays one object, compiled once.
const storableCopies = new WeakMap<Schema, Schema>();

/** A copy of `schema` that also refuses NUL in every string and integers outside int4; narrower bounds are kept. */
export function storableSchema<S extends Schema>(schema: S): S {
  let copy = storableCopies.get(schema);
  if (!copy) storableCopies.set(schema, (copy = storable(schema)));
  return copy as S;
}

function storable(schema: Schema): Schema {
  const copy: Schema = { ...schema };
  for (const keyword of SUBSCHEMA_KEYWORDS) {
    if (keyword in copy) copy[keyword] = storableItem(copy[keyword]);
  }
  for (const keyword of SUBSCHEMA_LIST_KEYWORDS) {
    if (Array.isArray(copy[keyword])) copy[keyword] = copy[keyword].map(storableItem);
  }
  for (const keyword of SUBSCHEMA_MAP_KEYWORDS) {
    const map = copy[keyword];
    if (isSchema(map))
      copy[keyword] = Object.fromEntries(Object.entries(map).map(([name, item]) => [name, storableItem(item)]));
  }
  if (allows(copy, 'string')) refuseNul(copy);
  if (allows(copy, 'integer')) holdToIntegerRange(copy);
  return copy;
}

function storableItem(value: unknown): unknown {
  return isSchema(value) ? storableSchema(value) : value;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function allows(schema: Schema, type: string): boolean {
  return schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type));
}

// A schema with a pattern of its own keeps it (its message stays the one callers know) and gains NUL's in an allOf.
function refuseNul(schema: Schema): void {
  if (schema.pattern === undefined) schema.pattern = NO_NUL_PATTERN;
  else if (schema.pattern !== NO_NUL_PATTERN)
    schema.allOf = [...((schema.allOf as unknown[] | undefined) ?? []), { pattern: NO_NUL_PATTERN }];
}

function holdToIntegerRange(schema: Schema): void {
  const { minimum, maximum } = STORABLE_INTEGER_RANGE;
  schema.minimum = typeof schema.minimum === 'number' ? Math.max(schema.minimum, minimum) : minimum;
  schema.maximum = typeof schema.maximum === 'number' ? Math.min(schema.maximum, maximum) : maximum;
}

/**
 * Where a parsed document without a schema of its own (a resource body, judged by the cluster) holds
 * a NUL, in a value or a key: the field, written as refusals name fields (`spec.variables[0].value`),
 * or undefined. The document is within the nesting limit already, so the recursion is bounded.
 */
export function fieldWithNul(value: unknown, field = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? field : undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = fieldWithNul(item, `${field}[${index}]`);
      if (found !== undefined) return found;
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const path = field ? `${field}.${key}` : key;
      if (key.includes('\u0000')) return path;
      const found = fieldWithNul(item, path);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
