import type { ErrorObject } from 'ajv';
import { apiError, type ReasonWithStatus } from '../../base/http/error-catalogue.ts';
import type { ApiRequest } from '../../base/http/api-request.ts';
import { readJsonObject } from '../../base/http/json-body.ts';
import { KUBERNETES_PROTOBUF, readKubernetesProtobuf } from '../../base/http/kubernetes-protobuf.ts';
import type { RouteDefinition } from '../../contract/routes/route-table.ts';
import {
  CHAIN_QUERY_PARAMETERS,
  refusesNamespaceQuery,
  takesNoBody,
  undeclaredQueryParameters,
} from '../../contract/routes/closed-input.ts';
import { NO_NUL_PATTERN, NUL_REFUSAL } from '../../base/json/storable-schema.ts';
import { ERROR_REASON_KEYWORD } from './schema-keywords.ts';

export { ERROR_REASON_DEFINITION, ERROR_REASON_KEYWORD } from './schema-keywords.ts';

/** A route's query and body as its schemas define them, each read and checked when the handler first asks for it. */
export interface RequestInput<Body = unknown, Query = Record<string, unknown>> {
  body(): Body;
  query(): Query;
}

type Schema = Record<string, unknown>;

type SchemaChecks = typeof import('./schema-checks.ts');
let schemaChecks: SchemaChecks | undefined;
let loadingSchemaChecks: Promise<void> | undefined;

/**
 * Loads the schema checker (Ajv, about half the code a function would load at start) once. Not at
 * start: /healthz and routes without a query or body schema (GET whoami) never need it.
 */
export function loadSchemaChecks(): Promise<void> {
  loadingSchemaChecks ??= import('./schema-checks.ts').then((loaded) => {
    schemaChecks = loaded;
  });
  return loadingSchemaChecks;
}

/** Undefined when the route's input can be checked now; else the loading of the checker its schemas need. */
export function schemaChecksPending(route: RouteDefinition | undefined): Promise<void> | undefined {
  if (schemaChecks !== undefined || route === undefined) return undefined;
  const checked = route.querySchema !== undefined || (route.requestSchema !== undefined && !route.bodyJudgedByCluster);
  return checked ? loadSchemaChecks() : undefined;
}

/**
 * Gives the request its `input`: the query and the JSON body checked against the route's schemas,
 * each once, when first read (the chain reads both after authorizing, once the checker is loaded:
 * filters/request-input.ts).
 * Resource bodies under `/apis/` are judged by the cluster, not here.
 */
export function attachRequestInput<Request extends ApiRequest & { route?: RouteDefinition }>(
  request: Request,
): asserts request is Request & { input: RequestInput } {
  const { route } = request;
  let body: { value: unknown } | undefined;
  let query: { value: Record<string, unknown> } | undefined;
  (request as Request & { input: RequestInput }).input = {
    body: () =>
      (body ??= {
        value:
          route?.requestSchema && !route.bodyJudgedByCluster
            ? checkedBody(request, route, route.requestSchema)
            : noBody(request, route),
      }).value,
    query: () => (query ??= { value: checkedQuery(request, route) }).value,
  };
}

/** Nothing, when the route takes no body and none came; a body it would ignore is a 400. */
function noBody(request: ApiRequest, route: RouteDefinition | undefined): undefined {
  if (route && request.body.length > 0 && takesNoBody(route))
    throw apiError('BadRequest', `${route.method} ${route.path} takes no body`);
  return undefined;
}

function checkedBody(request: ApiRequest, route: RouteDefinition, schema: Schema): unknown {
  const reason = reasonOf(schema, undefined);
  // An empty body is an empty object: a route whose fields are all optional needs none.
  const body = request.body.length === 0 ? {} : readBody(request, route, reason);
  checkAgainstSchema(route, schema, body, 'body', 'body field');
  return body;
}

/** The body as an object, from JSON or (where the route reads it) protobuf; unreadable: a 400. */
function readBody(request: ApiRequest, route: RouteDefinition, reason: ReasonWithStatus<400>): Record<string, unknown> {
  requireReadableMediaType(request, route);
  return route.protobufBody && isProtobuf(request)
    ? readKubernetesProtobuf(request.body, route.protobufBody)
    : readJsonObject(request, reason);
}

/**
 * A body is read only as what its `Content-Type` says, and only in a type the route reads: a body sent
 * as `text/plain`, as a form or with no type was read as JSON. 415, as kube-apiserver answers, naming
 * the types the route takes.
 */
function requireReadableMediaType(request: ApiRequest, route: RouteDefinition): void {
  const accepted = [
    JSON_MEDIA_TYPE,
    ...(route.protobufBody ? [KUBERNETES_PROTOBUF] : []),
    ...(route.acceptsJsonApi ? [JSON_API_MEDIA_TYPE] : []),
  ];
  const type = String(request.headers['content-type'] ?? '')
    .split(';', 1)[0]!
    .trim()
    .toLowerCase();
  if (accepted.includes(type)) return;
  const message = `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`;
  throw apiError('UnsupportedMediaType', message);
}

const JSON_MEDIA_TYPE = 'application/json';
const JSON_API_MEDIA_TYPE = 'application/vnd.api+json';

function isProtobuf(request: ApiRequest): boolean {
  return String(request.headers['content-type'] ?? '').startsWith(KUBERNETES_PROTOBUF);
}

function checkedQuery(request: ApiRequest, route: RouteDefinition | undefined): Record<string, unknown> {
  // The first value of a repeated parameter, as URLSearchParams.get answers.
  const values: Record<string, unknown> = Object.create(null);
  // Most requests have no query: no iterator and no search for an unknown name then.
  const { query } = request;
  if (query.size > 0)
    // The chain's own parameters (`timeout`) are no route's input.
    for (const [name, value] of query)
      if (!Object.hasOwn(values, name) && !CHAIN_QUERY_PARAMETERS.includes(name)) values[name] = value;
  if (route?.querySchema) checkAgainstSchema(route, route.querySchema, values, 'query', 'query parameter');
  const accepted = query.size > 0 && route && undeclaredQueryParameters(route);
  const unknown = accepted
    ? Object.keys(values).find((name) => !accepted.includes(name))
    : route && Object.hasOwn(values, 'namespace') && refusesNamespaceQuery(route)
      ? 'namespace'
      : undefined;
  if (unknown !== undefined && route)
    throw apiError('BadRequest', `query parameter ${JSON.stringify(unknown)} is not a known field`);
  return values;
}

function checkAgainstSchema(
  route: RouteDefinition,
  schema: Schema,
  value: unknown,
  place: 'body' | 'query',
  what: string,
): void {
  // filters/request-input.ts awaits schemaChecksPending before any input is read.
  if (schemaChecks === undefined) throw new Error(`${route.operationId}: input read before its schema checker loaded`);
  const check = schemaChecks.checkOf(schema, place);
  if (check(value)) return;
  const error = check.errors![0]!;
  const field = fieldOf(error);
  throw apiError(reasonOf(schema, field.split(/[.[]/)[0]), `${what} ${JSON.stringify(field)} ${problemOf(error)}`);
}

/** The field an error is about: its path, or the property missing or not allowed. */
function fieldOf(error: ErrorObject): string {
  const path = error.instancePath
    .slice(1)
    .split('/')
    .map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : `${index ? '.' : ''}${part}`))
    .join('');
  const property =
    (error.params as { missingProperty?: string; additionalProperty?: string }).missingProperty ??
    (error.params as { additionalProperty?: string }).additionalProperty;
  return property === undefined ? path : path ? `${path}.${property}` : property;
}

function problemOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'dependentRequired':
      return `is required with ${JSON.stringify((error.params as { property: string }).property)}`;
    case 'additionalProperties':
      return 'is not a known field';
    case 'enum':
      return `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    case 'const':
      // Ajv's own words ("must be equal to constant") do not say which value.
      return `must be ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)}`;
    case 'pattern':
      // The pattern every string gains (json/storable-schema.ts) says in words what it refuses.
      return (error.params as { pattern: string }).pattern === NO_NUL_PATTERN
        ? NUL_REFUSAL
        : (error.message ?? 'is invalid');
    default:
      return error.message ?? 'is invalid';
  }
}

// The annotations name 400 reasons of the catalogue (test/integration/foundation/error-catalogue.test.ts holds them to it).
function reasonOf(schema: Schema, field: string | undefined): ReasonWithStatus<400> {
  const property = field === undefined ? undefined : (schema.properties as Record<string, Schema> | undefined)?.[field];
  return (property?.[ERROR_REASON_KEYWORD] ?? schema[ERROR_REASON_KEYWORD] ?? 'BadRequest') as ReasonWithStatus<400>;
}
