/**
 * What each `{parameter}` of a route path may hold. The server writes with its own ServiceAccount,
 * so a segment that could change the shape of the request it sends (`.`, `..`, an encoded `/`)
 * must never get past the route: every parameter is checked against its schema where the route
 * matches, before authorization, and the same schema documents it in the OpenAPI document.
 */
import { DNS_LABEL, DNS_SUBDOMAIN, type NameSchema } from '../kinds/object-names.ts';

/** The schema of a path parameter: a name schema (object names are the resources layer's). */
export type PathParameterSchema = NameSchema;

/** A run id: a UUID in canonical text form. */
export const RUN_ID: PathParameterSchema = {
  type: 'string',
  pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
  maxLength: 36,
  description: 'A run id (a UUID, lower case).',
};

/** A delivery of the outbound engine's log (issue 47): a positive whole number. */
export const DELIVERY_ID: PathParameterSchema = {
  type: 'string',
  pattern: '^[1-9][0-9]{0,17}$',
  maxLength: 18,
  description: 'A delivery id (a positive whole number).',
};

/** The schema of a parameter by its name, for routes that do not name one themselves. */
export const PATH_PARAMETERS_BY_NAME: Readonly<Record<string, PathParameterSchema>> = {
  namespace: DNS_LABEL,
  project: DNS_LABEL,
  workspace: DNS_SUBDOMAIN,
  name: DNS_SUBDOMAIN,
  run: RUN_ID,
  notification: DNS_SUBDOMAIN,
  delivery: DELIVERY_ID,
};

/** The `{name}` parameters of a route path, in order. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{([a-zA-Z]+)\}/g)].map((match) => match[1]!);
}

/** Checks one decoded parameter value; answers why it is refused, or undefined when it is valid. */
type PathParameterCheck = (value: string) => string | undefined;

const MAX_ECHOED_LENGTH = 64;

/** Compiles a schema into its check, with messages worded as Kubernetes words name errors. */
function compilePathParameter(schema: PathParameterSchema): PathParameterCheck {
  const pattern = new RegExp(schema.pattern);
  return (value) => {
    if (value === '.' || value === '..') return `may not be '${value}'`;
    if (value.length > schema.maxLength) return `must be no more than ${schema.maxLength} characters`;
    if (!pattern.test(value)) return `must match ${schema.pattern} (${schema.description})`;
    return undefined;
  };
}

const compiledChecks = new WeakMap<PathParameterSchema, PathParameterCheck>();

/** Checks a value against a schema (compiled once per schema); answers why it is refused, or undefined. */
export function checkAgainst(schema: PathParameterSchema, value: string): string | undefined {
  let check = compiledChecks.get(schema);
  if (!check) compiledChecks.set(schema, (check = compilePathParameter(schema)));
  return check(value);
}

/** A refused value as it may appear in an error message: JSON-quoted, and cut when long. */
export function echoedValue(value: string): string {
  return JSON.stringify(value.length > MAX_ECHOED_LENGTH ? `${value.slice(0, MAX_ECHOED_LENGTH)}…` : value);
}
