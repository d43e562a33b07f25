import type { RouteDefinition } from '../routes/route-table.ts';
import { documentedErrorBodies } from '../routes/error-dress.ts';
import { schemaRef } from './kind-schemas.ts';

// What /openapi.json says a route takes and answers, derived from its properties: the resource
// routes carry their kind (a component from the CRD), every refusal carries the body it is sent
// with (the contract's `{error, reason}`, or a Kubernetes `Status` on the routes that answer those).

const OBJECT_BODIES = new Set(['create', 'replace', 'replaceStatus']);
const ERROR = schemaRef('Error');
const STATUS = schemaRef('Status');

/** The request body's schema: a resource route's whole object is its kind's CRD schema. */
export function documentedRequestSchema(route: RouteDefinition): Record<string, unknown> | undefined {
  if (route.resource && OBJECT_BODIES.has(route.resource.operation)) return schemaRef(route.resource.kind);
  return route.requestSchema;
}

type Content = Record<string, { schema: Record<string, unknown> }>;

function resourceSuccessContent({ kind, operation }: NonNullable<RouteDefinition['resource']>): Content {
  const table = schemaRef('Table');
  if (operation === 'list') {
    return {
      'application/json': { schema: { anyOf: [schemaRef(`${kind}List`), table] } },
      // How Kubernetes' own documents name a watch; the stream is sent as application/json, one event a line.
      'application/json;stream=watch': { schema: schemaRef('WatchEvent') },
    };
  }
  const shown = operation === 'delete' ? [schemaRef(kind), STATUS, table] : [schemaRef(kind), table];
  return { 'application/json': { schema: { anyOf: shown } } };
}

function successContent(route: RouteDefinition): Content | undefined {
  if (route.resource) return resourceSuccessContent(route.resource);
  if (!route.responseSchema && !route.responseMediaType) return undefined;
  return { [route.responseMediaType ?? 'application/json']: { schema: route.responseSchema ?? { type: 'string' } } };
}

/** The body of an error answer, as the error filter dresses it (shared/contract/routes/error-dress.ts). */
function errorSchema(route: RouteDefinition, status: number): Record<string, unknown> {
  const bodies = documentedErrorBodies(route, status);
  if (bodies.plain && bodies.status) return { anyOf: [STATUS, ERROR] };
  return bodies.status ? STATUS : ERROR;
}

/** Every answer the route can give, each with the schema of its body. */
export function documentedResponses(route: RouteDefinition): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  if (!route.answersOnlyErrors) {
    const content = successContent(route);
    responses[String(route.successStatus ?? 200)] = { description: 'Success.', ...(content ? { content } : {}) };
  }
  for (const [status, description] of Object.entries(route.errorResponses ?? {})) {
    const code = Number(status);
    // A second success (202 of a plan approval that needs more) carries the success's body; 204 has none.
    const success = code !== 204 ? successContent(route) : undefined;
    responses[status] =
      code < 300
        ? { description, ...(success ? { content: success } : {}) }
        : { description, content: { 'application/json': { schema: errorSchema(route, code) } } };
  }
  return responses;
}
