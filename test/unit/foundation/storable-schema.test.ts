// Issue 20, item 3: the refusal of what storage cannot hold is added to request schemas by construction.
// storableSchema gives every string, at any depth, the NUL refusal and every integer the int4 range,
// keeping what a schema says of its own (a narrower range, a pattern).
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { ERROR_REASON_DEFINITION } from '../../../shared/server/runtime/request-validation.ts';
import { STORABLE_INTEGER_RANGE, fieldWithNul, storableSchema } from '../../../shared/base/json/storable-schema.ts';

const NUL = 'a\u0000b';
const ajv = new Ajv2020({ strict: true }).addKeyword(ERROR_REASON_DEFINITION);
const TAG = { type: 'string', maxLength: 10 } as const;
const SCHEMA = {
  type: 'object',
  properties: {
    text: { type: 'string' },
    nullable: { type: ['string', 'null'] },
    patterned: { type: 'string', pattern: '^[a-z\\u0000]+$' },
    list: { type: 'array', items: { type: 'object', properties: { line: { type: 'string' } } } },
    map: { type: 'object', additionalProperties: { type: 'string' } },
    either: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
    count: { type: 'integer' },
    small: { type: 'integer', minimum: 1, maximum: 500 },
    wide: { type: 'integer', minimum: -1e12, maximum: 1e12 },
    tags: { type: 'object', properties: { first: TAG, second: TAG } },
  },
} as const;

describe('storableSchema: every string refuses NUL, every integer holds to int4, at any depth', () => {
  const check = ajv.compile(storableSchema(SCHEMA));

  it.each([
    ['a top-level string', { text: NUL }],
    ['a string that may be null', { nullable: NUL }],
    ['a string with a pattern of its own that admits NUL', { patterned: NUL }],
    ['a string in an object in an array', { list: [{ line: 'ok' }, { line: NUL }] }],
    ['a value of a map', { map: { key: NUL } }],
    ['a string branch of anyOf', { either: NUL }],
  ])('refuses NUL in %s', (_, value) => {
    expect(check(value)).toBe(false);
  });

  it.each([
    ['an integer without bounds', { count: 2 ** 31 }],
    ['an integer below the range', { count: -(2 ** 31) - 1 }],
    ['an integer with wider bounds of its own', { wide: 2 ** 31 }],
    ['an integer branch of anyOf', { either: 2 ** 53 }],
    ['1e21 (an integer to JSON Schema)', { count: 1e21 }],
  ])('refuses %s out of the int4 range', (_, value) => {
    expect(check(value)).toBe(false);
  });

  it('accepts the same fields with values storage holds, at the edges of the range', () => {
    const { minimum, maximum } = STORABLE_INTEGER_RANGE;
    expect([minimum, maximum]).toEqual([-2147483648, 2147483647]);
    expect(
      check({
        text: 'a b\tc\u0001é',
        nullable: null,
        patterned: 'abc',
        list: [{ line: '' }],
        map: { key: 'v' },
        either: 'x',
        count: maximum,
        wide: minimum,
        small: 500,
      }),
    ).toBe(true);
  });

  it("keeps a schema's own narrower range and pattern, and leaves the schema it was given as it was", () => {
    const storable = storableSchema(SCHEMA).properties;
    expect(storable.small).toMatchObject({ minimum: 1, maximum: 500 });
    expect(check({ small: 501 })).toBe(false);
    expect(storable.patterned).toMatchObject({ pattern: '^[a-z\\u0000]+$' });
    expect(check({ patterned: 'A' })).toBe(false);
    expect(SCHEMA.properties.text).toEqual({ type: 'string' });
    expect(SCHEMA.properties.count).toEqual({ type: 'integer' });
  });

  it('one subschema shared by many places stays one object (compiled once), and one schema gives one copy', () => {
    expect(storableSchema(SCHEMA)).toBe(storableSchema(SCHEMA));
    expect(storableSchema(SCHEMA).properties.tags.properties.first).toBe(
      storableSchema(SCHEMA).properties.tags.properties.second,
    );
  });

  it('what it makes is valid JSON Schema 2020-12', () => {
    expect(ajv.validateSchema(storableSchema(SCHEMA)), ajv.errorsText()).toBe(true);
  });
});

describe('fieldWithNul: where a document without a schema (a resource body) holds a NUL, named as refusals name fields', () => {
  it.each([
    [{ metadata: { name: NUL } }, 'metadata.name'],
    [{ spec: { variables: [{ value: 'ok' }, { value: NUL }] } }, 'spec.variables[1].value'],
    [{ metadata: { labels: { [NUL]: 'v' } } }, `metadata.labels.${NUL}`],
    [[{ op: 'add', path: '/spec/x', value: NUL }], '[0].value'],
  ])('%j: %s', (document, field) => {
    expect(fieldWithNul(document)).toBe(field);
  });

  it('finds none in a document without NUL, whatever else its strings hold', () => {
    expect(fieldWithNul({ spec: { a: ['\u0001', 'é', '\\u0000'], b: 1, c: null, d: true } })).toBeUndefined();
  });
});
