import {
  JsonDocumentError,
  assertNestingWithinLimit,
  parseJsonDocument,
} from '../../../shared/base/json/json-document.ts';
import { parse as parseYaml } from 'yaml';
import type { HandlerRequest } from '../../../shared/server/runtime/function-definition.ts';
import type { ApiError } from '../../../shared/base/http/api-error.ts';
import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import { API_VERSION, type PlatformKind } from '../../../shared/contract/kinds/platform-kinds.ts';
import { isJsonObject, type PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import { checkAgainst, echoedValue } from '../../../shared/contract/routes/path-parameters.ts';
import { NUL_REFUSAL, fieldWithNul } from '../../../shared/base/json/storable-schema.ts';

function badRequest(message: string): ApiError {
  return apiError('BadRequest', message);
}

// Kubernetes calls malformed JSON a plain BadRequest; only the depth limit has a reason of its own.
function unreadableJson(error: JsonDocumentError): ApiError {
  return apiError(error.reason === 'JsonNestingTooDeep' ? error.reason : 'BadRequest', error.message);
}

// YAML bodies: `application/yaml` for objects, and server-side apply's configuration.
const YAML_TYPES = new Set(['application/yaml', 'application/apply-patch+yaml']);

/** The media type of the request body, lower case, without parameters. */
export function bodyMediaType(request: HandlerRequest): string {
  return (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/**
 * The request body as JSON, or as YAML when the Content-Type says so; a 400 `Status` when it is empty
 * or malformed, or when a string in it (a value or a key) holds a NUL. The cluster would store one,
 * but nothing the platform writes needs it, and every body and query the server checks against a
 * schema refuses it too (json/storable-schema.ts).
 */
export function parseRequestBody(request: HandlerRequest): unknown {
  const document = parseDocument(request);
  const field = fieldWithNul(document);
  if (field !== undefined) throw badRequest(`body field ${JSON.stringify(field)} ${NUL_REFUSAL}`);
  return document;
}

function parseDocument(request: HandlerRequest): unknown {
  const text = Buffer.from(request.body).toString('utf8');
  if (text.trim() === '') throw badRequest('the request body is empty; a JSON or YAML document is required');
  if (YAML_TYPES.has(bodyMediaType(request))) return parseYamlBody(text);
  try {
    return parseJsonDocument(text);
  } catch (error) {
    if (error instanceof JsonDocumentError) throw unreadableJson(error);
    throw error;
  }
}

/**
 * How many times one anchored YAML value (`&name`, then each `*name`) may appear in a body: a handful
 * is what people write; a YAML bomb needs thousands (the `yaml` library counts the anchor and every
 * alias, an alias of a collection once per alias inside it).
 */
export const YAML_ALIAS_LIMIT = 100;

// The `yaml` library's words when the alias limit is reached.
const EXCESSIVE_ALIASES = /^Excessive alias count/;

// One document only, no custom tags, and aliases bounded: a YAML bomb is refused, not expanded.
function parseYamlBody(text: string): unknown {
  let document: unknown;
  try {
    document = parseYaml(text, { maxAliasCount: YAML_ALIAS_LIMIT, customTags: [], uniqueKeys: true });
  } catch (error) {
    const problem = (error as Error).message.split('\n', 1)[0]!;
    throw badRequest(
      EXCESSIVE_ALIASES.test(problem)
        ? `the request body is refused: a YAML anchor and its aliases stand for more than ${YAML_ALIAS_LIMIT} values`
        : `the request body is not valid YAML: ${problem}`,
    );
  }
  try {
    assertNestingWithinLimit(document);
  } catch (error) {
    if (error instanceof JsonDocumentError) throw unreadableJson(error);
    throw error;
  }
  return document;
}

/**
 * The object of a create or replace, checked against the URL: the kind and apiVersion it must
 * have, its namespace (set from the URL) and, on replace, its name. Violations are 400/422, never 500.
 */
export function objectForWrite(
  body: unknown,
  kind: PlatformKind,
  apiGroup: string,
  url: { namespace?: string; name?: string },
): PlatformObject {
  if (!isJsonObject(body)) throw badRequest(`the request body must be a JSON object (a ${kind.kind})`);
  if (body.kind === undefined || body.kind === '') throw badRequest("Object 'Kind' is missing in the request body");
  const apiVersion = `${apiGroup}/${API_VERSION}`;
  // Said as what is missing: "the body is undefined ..." left the caller to guess (issue 44, item 15).
  if (body.apiVersion === undefined || body.apiVersion === '')
    throw badRequest(`apiVersion is required: expected ${JSON.stringify(apiVersion)}`);
  if (body.kind !== kind.kind || body.apiVersion !== apiVersion) {
    throw badRequest(
      `the body is ${JSON.stringify(body.apiVersion)} ${JSON.stringify(body.kind)}, but this path takes apiVersion "${apiVersion}", kind "${kind.kind}"`,
    );
  }
  const metadata = body.metadata ?? {};
  if (!isJsonObject(metadata)) throw badRequest('metadata must be an object');
  if (kind.namespaced) {
    if (metadata.namespace !== undefined && metadata.namespace !== url.namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    metadata.namespace = url.namespace;
  }
  // The name goes into paths the server builds (a Project's namespace, a VariableSet's Secret) before the cluster sees it.
  if (metadata.name !== undefined) {
    const problem =
      typeof metadata.name === 'string' ? checkAgainst(kind.nameSchema, metadata.name) : 'must be a string';
    if (problem !== undefined)
      throw invalidField(kind, apiGroup, String(metadata.name), 'metadata.name', problem, String(metadata.name));
  }
  if (url.name !== undefined && metadata.name !== url.name) {
    throw badRequest(
      `the name of the object (${String(metadata.name ?? '')}) does not match the name on the URL (${url.name})`,
    );
  }
  for (const part of ['spec', 'status'] as const) {
    if (body[part] !== undefined && !isJsonObject(body[part]))
      throw invalidField(kind, apiGroup, String(metadata.name ?? ''), part, 'must be an object');
  }
  return { ...body, metadata } as PlatformObject;
}

/** 422 `Invalid` for one field, worded as kube-apiserver words it. */
export function invalidField(
  kind: PlatformKind,
  apiGroup: string,
  name: string,
  field: string,
  detail: string,
  value?: string,
): ApiError {
  const shown = value === undefined ? '' : `${echoedValue(value)}: `;
  return apiError(
    'Invalid',
    `${kind.kind}.${apiGroup} ${echoedValue(name)} is invalid: ${field}: Invalid value: ${shown}${detail}`,
    {},
    {
      name,
      group: apiGroup,
      kind: kind.kind,
      causes: [{ reason: 'FieldValueInvalid', message: detail, field }],
    },
  );
}
