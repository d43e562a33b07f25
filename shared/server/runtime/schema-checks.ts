// The checker of request input against the routes' JSON Schemas (Ajv), imported when a route
// with a query or body schema is first requested (request-validation.ts, loadSchemaChecks): with
// its formats it is about half the code a function would otherwise load at start.
import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ERROR_REASON_DEFINITION } from './schema-keywords.ts';

type Schema = Record<string, unknown>;

// The schemas are checked against the meta-schema by the tests (test/unit/foundation/request-schemas.test.ts),
// not at run time: that check costs a function about 50 ms on its first request.
const makeAjv = (coerceTypes: boolean) => {
  const ajv = new Ajv2020({ coerceTypes, useDefaults: true, strict: true, allErrors: false, validateSchema: false });
  ajv.addKeyword(ERROR_REASON_DEFINITION);
  return addFormats.default(ajv, ['uuid', 'date-time', 'uri']);
};
// Query values arrive as text: the query checker turns `limit=5` into the number its schema asks for.
let bodyAjv: Ajv2020 | undefined;
let queryAjv: Ajv2020 | undefined;
const compiled = new WeakMap<Schema, ValidateFunction>();

/** A schema's check, compiled on first use and kept for the life of the process (the schemas are constants). */
export function checkOf(schema: Schema, place: 'body' | 'query'): ValidateFunction {
  let check = compiled.get(schema);
  if (!check) {
    const ajv = place === 'body' ? (bodyAjv ??= makeAjv(false)) : (queryAjv ??= makeAjv(true));
    compiled.set(schema, (check = ajv.compile(schema)));
  }
  return check;
}
