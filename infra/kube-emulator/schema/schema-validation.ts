// Validation of a custom resource against its structural schema, with the errors kube-apiserver answers: kube-openapi's
// validators (k8s.io/kube-openapi/pkg/validation/validate) and their messages, turned into field errors the way
// apiextensions-apiserver's kubeOpenAPIResultToFieldErrors does. `x-kubernetes-validations` (CEL) is not evaluated.
import { matchesFormat } from './schema-formats.ts';
import type { FieldError } from '../http/status.ts';
import { isJsonObject, itemPath, jsonTypeOf, ownMember, propertyPath } from './structural-schema.ts';
import type { JsonObject, JsonSchemaProps, JsonType } from './structural-schema.ts';

// kube-openapi names the location of every value "body" (the request body).
function inBody(path: string): string {
  return `${path} in body`;
}

// A kube-openapi error without a more specific field error type: field.Invalid with the error's message.
function invalidValue(path: string, value: unknown, message: string): FieldError {
  return { field: path, type: 'FieldValueInvalid', value: value ?? '', detail: message };
}

function allowedTypes(schema: JsonSchemaProps): JsonType[] {
  if (schema['x-kubernetes-int-or-string']) return ['integer', 'string'];
  return schema.type ? [schema.type] : [];
}

function typeErrors(value: unknown, schema: JsonSchemaProps, path: string): FieldError[] {
  const types = allowedTypes(schema);
  const actual = jsonTypeOf(value);
  if (types.length === 0 || (actual === 'null' && schema.nullable)) return [];
  if (types.includes(actual as JsonType) || (actual === 'integer' && types.includes('number'))) return [];
  return [
    {
      field: path,
      type: 'FieldValueTypeInvalid',
      value: actual,
      detail: `${inBody(path)} must be of type ${types.join(',')}: "${actual}"`,
    },
  ];
}

function stringErrors(value: string, schema: JsonSchemaProps, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const length = [...value].length;
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    errors.push({ field: path, type: 'FieldValueTooLong', detail: `may not be more than ${schema.maxLength} bytes` });
  }
  if (schema.minLength !== undefined && length < schema.minLength) {
    errors.push(invalidValue(path, value, `${inBody(path)} should be at least ${schema.minLength} chars long`));
  }
  if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value)) {
    errors.push(invalidValue(path, value, `${inBody(path)} should match '${schema.pattern}'`));
  }
  if (schema.format !== undefined && !matchesFormat(schema.format, value)) {
    errors.push({
      field: path,
      type: 'FieldValueTypeInvalid',
      value,
      detail: `${inBody(path)} must be of type ${schema.format}: ${JSON.stringify(value)}`,
    });
  }
  return errors;
}

function numberErrors(value: number, schema: JsonSchemaProps, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (schema.multipleOf !== undefined && !Number.isInteger(value / schema.multipleOf)) {
    errors.push(invalidValue(path, value, `${inBody(path)} should be a multiple of ${schema.multipleOf}`));
  }
  if (schema.maximum !== undefined && (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum)) {
    errors.push(
      invalidValue(
        path,
        value,
        `${inBody(path)} should be less than ${schema.exclusiveMaximum ? '' : 'or equal to '}${schema.maximum}`,
      ),
    );
  }
  if (schema.minimum !== undefined && (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum)) {
    errors.push(
      invalidValue(
        path,
        value,
        `${inBody(path)} should be greater than ${schema.exclusiveMinimum ? '' : 'or equal to '}${schema.minimum}`,
      ),
    );
  }
  return errors;
}

function arrayErrors(value: unknown[], schema: JsonSchemaProps, path: string): FieldError[] {
  const errors = schema.items
    ? value.flatMap((item, index) => schemaErrors(item, schema.items!, itemPath(path, index)))
    : [];
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    errors.push(invalidValue(path, value.length, `${inBody(path)} should have at least ${schema.minItems} items`));
  }
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    errors.push({
      field: path,
      type: 'FieldValueTooMany',
      value: value.length,
      detail: `must have at most ${schema.maxItems} items`,
    });
  }
  if (schema.uniqueItems && new Set(value.map((item) => JSON.stringify(item))).size !== value.length) {
    errors.push(invalidValue(path, undefined, `${inBody(path)} shouldn't contain duplicates`));
  }
  return errors;
}

function enumErrors(value: unknown, schema: JsonSchemaProps, path: string): FieldError[] {
  if (!schema.enum || schema.enum.some((allowed) => JSON.stringify(allowed) === JSON.stringify(value))) return [];
  const supported = schema.enum.map((allowed) =>
    JSON.stringify(typeof allowed === 'string' ? allowed : JSON.stringify(allowed)),
  );
  return [{ field: path, type: 'FieldValueNotSupported', value, detail: `supported values: ${supported.join(', ')}` }];
}

function objectErrors(value: JsonObject, schema: JsonSchemaProps, path: string): FieldError[] {
  const count = Object.keys(value).length;
  // kube-openapi stops at a property-count violation.
  if (schema.minProperties !== undefined && count < schema.minProperties) {
    return [invalidValue(path, count, `${inBody(path)} should have at least ${schema.minProperties} properties`)];
  }
  if (schema.maxProperties !== undefined && count > schema.maxProperties) {
    return [
      {
        field: path,
        type: 'FieldValueTooMany',
        value: count,
        detail: `must have at most ${schema.maxProperties} items`,
      },
    ];
  }
  const properties = schema.properties ?? {};
  const additional = isJsonObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  const errors: FieldError[] = [];
  if (additional) {
    for (const [key, item] of Object.entries(value))
      if (!Object.hasOwn(properties, key) && item !== undefined)
        errors.push(...schemaErrors(item, additional, propertyPath(path, key)));
  }
  for (const [key, propertySchema] of Object.entries(properties)) {
    const member = ownMember(value, key);
    if (member !== undefined) errors.push(...schemaErrors(member, propertySchema, propertyPath(path, key)));
  }
  for (const key of schema.required ?? []) {
    if (ownMember(value, key) === undefined)
      errors.push({ field: propertyPath(path, key), type: 'FieldValueRequired', detail: '' });
  }
  return errors;
}

// allOf, anyOf, oneOf and not: the composite's own error plus, as kube-openapi keeps them, the failures of the
// closest alternative (here: the one with the fewest errors).
function compositionErrors(value: unknown, schema: JsonSchemaProps, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const closestFailure = (results: FieldError[][]) =>
    results.reduce((best, result) => (result.length < best.length ? result : best));
  if (schema.anyOf?.length) {
    const results = schema.anyOf.map((branch) => schemaErrors(value, branch, path));
    if (results.every((result) => result.length > 0)) {
      errors.push(
        invalidValue(path, undefined, `${path} must validate at least one schema (anyOf)`),
        ...closestFailure(results),
      );
    }
  }
  if (schema.oneOf?.length) {
    const results = schema.oneOf.map((branch) => schemaErrors(value, branch, path));
    const valid = results.filter((result) => result.length === 0).length;
    if (valid !== 1) {
      const found = valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`;
      errors.push(invalidValue(path, undefined, `${path} must validate one and only one schema (oneOf). ${found}`));
      if (valid === 0) errors.push(...closestFailure(results));
    }
  }
  if (schema.allOf?.length) {
    const results = schema.allOf.map((branch) => schemaErrors(value, branch, path));
    const failed = results.filter((result) => result.length > 0);
    if (failed.length > 0) {
      const none = failed.length === results.length ? '. None validated' : '';
      errors.push(
        ...failed.flat(),
        invalidValue(path, undefined, `${path} must validate all the schemas (allOf)${none}`),
      );
    }
  }
  if (schema.not && schemaErrors(value, schema.not, path).length === 0) {
    errors.push(invalidValue(path, undefined, `${path} must not validate the schema (not)`));
  }
  return errors;
}

/**
 * The field errors of a value against its schema, in kube-openapi's order: type (which stops the rest), the
 * compositions, string, number, array and enum keywords, then the object's properties and required ones.
 */
export function schemaErrors(value: unknown, schema: JsonSchemaProps, path = ''): FieldError[] {
  const typeProblems = typeErrors(value, schema, path);
  if (typeProblems.length > 0 || value === null || value === undefined) return typeProblems;
  return [
    ...compositionErrors(value, schema, path),
    ...(typeof value === 'string' ? stringErrors(value, schema, path) : []),
    ...(typeof value === 'number' ? numberErrors(value, schema, path) : []),
    ...(Array.isArray(value) ? arrayErrors(value, schema, path) : []),
    ...enumErrors(value, schema, path),
    ...(isJsonObject(value) ? objectErrors(value, schema, path) : []),
  ];
}
