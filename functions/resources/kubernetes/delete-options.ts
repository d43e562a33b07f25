import type { ApiError } from '../../../shared/base/http/api-error.ts';
import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import { isJsonObject } from '../../../shared/contract/kinds/platform-object.ts';
import { CHAIN_QUERY_PARAMETERS } from '../../../shared/contract/routes/closed-input.ts';

/**
 * The `DeleteOptions` of a delete, checked, as they go on to the cluster. kubectl 1.33 sends them in
 * the body (`{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"],"propagationPolicy":"Background"}`),
 * older clients in the query; both count, and nothing either carries is dropped without a 400.
 */
export interface DeleteOptions {
  kind: 'DeleteOptions';
  apiVersion: 'v1';
  dryRun?: ['All'];
  propagationPolicy?: PropagationPolicy;
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
}

export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';

const PROPAGATION_POLICIES: readonly string[] = ['Foreground', 'Background', 'Orphan'];
const BODY_FIELDS = ['kind', 'apiVersion', 'dryRun', 'propagationPolicy', 'preconditions', 'gracePeriodSeconds'];
const QUERY_OPTIONS = ['dryRun', 'propagationPolicy', 'gracePeriodSeconds'];
const PRECONDITION_FIELDS = ['uid', 'resourceVersion'];
// The DeleteOptions of meta/v1 may name their version either way.
const API_VERSIONS = ['v1', 'meta.k8s.io/v1'];

function invalid(message: string): ApiError {
  return apiError('BadRequest', message);
}

/** True when the options ask for a dry run: nothing may change anywhere. */
export function isDeleteDryRun(options: DeleteOptions): boolean {
  return options.dryRun !== undefined;
}

/** The checked options of a delete, from its query and its (parsed, possibly absent) body. */
export function deleteOptions(query: URLSearchParams, body: unknown): DeleteOptions {
  const fromBody = body === undefined ? {} : bodyOptions(body);
  const fromQuery = queryOptions(query);
  for (const name of ['propagationPolicy', 'gracePeriodSeconds'] as const) {
    if (fromBody[name] !== undefined && fromQuery[name] !== undefined && fromBody[name] !== fromQuery[name])
      throw invalid(
        `${name}: the body says ${JSON.stringify(fromBody[name])}, the query ${JSON.stringify(fromQuery[name])}`,
      );
  }
  // A dry run asked for in either place is a dry run.
  const dryRun = fromBody.dryRun ?? fromQuery.dryRun;
  const propagationPolicy = fromBody.propagationPolicy ?? fromQuery.propagationPolicy;
  const gracePeriodSeconds = fromBody.gracePeriodSeconds ?? fromQuery.gracePeriodSeconds;
  return {
    kind: 'DeleteOptions',
    apiVersion: 'v1',
    ...(dryRun ? { dryRun } : {}),
    ...(propagationPolicy !== undefined ? { propagationPolicy } : {}),
    ...(fromBody.preconditions ? { preconditions: fromBody.preconditions } : {}),
    ...(gracePeriodSeconds !== undefined ? { gracePeriodSeconds } : {}),
  };
}

type Options = Partial<Omit<DeleteOptions, 'kind' | 'apiVersion'>>;

function queryOptions(query: URLSearchParams): Options {
  const unknown = [...new Set(query.keys())].filter(
    (name) => !QUERY_OPTIONS.includes(name) && !CHAIN_QUERY_PARAMETERS.includes(name),
  );
  if (unknown.length > 0)
    throw invalid(
      `query parameters not supported on delete: ${unknown.join(', ')} (supported: ${QUERY_OPTIONS.join(', ')})`,
    );
  const options: Options = {};
  const dryRun = query.getAll('dryRun');
  if (dryRun.length > 0) options.dryRun = dryRunValue(dryRun);
  const policy = single(query, 'propagationPolicy');
  if (policy !== undefined) options.propagationPolicy = propagationPolicy(policy);
  const grace = single(query, 'gracePeriodSeconds');
  if (grace !== undefined) {
    if (!/^[0-9]{1,10}$/.test(grace)) throw invalidGracePeriod(grace);
    options.gracePeriodSeconds = gracePeriod(Number(grace));
  }
  return options;
}

function single(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw invalid(`${name}: given ${values.length} times; give it once`);
  return values[0];
}

function bodyOptions(body: unknown): Options {
  if (!isJsonObject(body)) throw invalid('the body of a delete must be a DeleteOptions object');
  const unknown = Object.keys(body).filter((field) => !BODY_FIELDS.includes(field));
  if (unknown.length > 0)
    throw invalid(`DeleteOptions fields not supported: ${unknown.join(', ')} (supported: ${BODY_FIELDS.join(', ')})`);
  if (body.kind !== undefined && body.kind !== 'DeleteOptions')
    throw invalid(`kind: Invalid value: ${JSON.stringify(body.kind)}: the body of a delete is a DeleteOptions`);
  if (body.apiVersion !== undefined && !API_VERSIONS.includes(body.apiVersion as string))
    throw invalid(`apiVersion: Invalid value: ${JSON.stringify(body.apiVersion)}: DeleteOptions are "v1"`);
  const options: Options = {};
  if (body.dryRun !== undefined && body.dryRun !== null) {
    if (!Array.isArray(body.dryRun) || body.dryRun.some((value) => typeof value !== 'string'))
      throw invalid('dryRun: Invalid value: must be a list of strings');
    // An empty list is no dry run, as kube-apiserver reads it.
    if (body.dryRun.length > 0) options.dryRun = dryRunValue(body.dryRun as string[]);
  }
  if (body.propagationPolicy !== undefined && body.propagationPolicy !== null) {
    if (typeof body.propagationPolicy !== 'string')
      throw invalid(`propagationPolicy: Invalid value: ${JSON.stringify(body.propagationPolicy)}: must be a string`);
    options.propagationPolicy = propagationPolicy(body.propagationPolicy);
  }
  if (body.preconditions !== undefined && body.preconditions !== null)
    options.preconditions = preconditions(body.preconditions);
  if (body.gracePeriodSeconds !== undefined && body.gracePeriodSeconds !== null)
    options.gracePeriodSeconds = gracePeriod(body.gracePeriodSeconds);
  return options;
}

function dryRunValue(values: string[]): ['All'] {
  const other = values.find((value) => value !== 'All');
  if (other !== undefined)
    throw invalid(`dryRun: Unsupported value: ${JSON.stringify(other)}: supported values: "All"`);
  return ['All'];
}

function propagationPolicy(value: string): PropagationPolicy {
  if (!PROPAGATION_POLICIES.includes(value))
    throw invalid(
      `propagationPolicy: Unsupported value: ${JSON.stringify(value)}: supported values: "Foreground", "Background", "Orphan"`,
    );
  return value as PropagationPolicy;
}

function preconditions(value: unknown): { uid?: string; resourceVersion?: string } {
  if (!isJsonObject(value)) throw invalid('preconditions: Invalid value: must be an object');
  const unknown = Object.keys(value).filter((field) => !PRECONDITION_FIELDS.includes(field));
  if (unknown.length > 0)
    throw invalid(`preconditions fields not supported: ${unknown.join(', ')} (supported: uid, resourceVersion)`);
  const checked: { uid?: string; resourceVersion?: string } = {};
  for (const field of PRECONDITION_FIELDS as ('uid' | 'resourceVersion')[]) {
    const given = value[field];
    if (given === undefined || given === null) continue;
    if (typeof given !== 'string' || given === '')
      throw invalid(`preconditions.${field}: Invalid value: ${JSON.stringify(given)}: must be a non-empty string`);
    checked[field] = given;
  }
  return checked;
}

// Whole seconds, as the cluster takes them; a negative or fractional value is refused, not rounded.
function gracePeriod(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw invalidGracePeriod(value);
  return value;
}

function invalidGracePeriod(value: unknown): ApiError {
  return invalid(
    `gracePeriodSeconds: Invalid value: ${JSON.stringify(value)}: must be a whole number of seconds, 0 or more`,
  );
}

/**
 * `Orphan` cannot take effect for a kind whose dependant the server deletes itself (a Project's
 * namespace, a VariableSet's Secret): refused, naming it, rather than ignored.
 */
export function refuseOrphaning(options: DeleteOptions, resource: string, dependant: string): void {
  if (options.propagationPolicy === 'Orphan')
    throw invalid(
      `propagationPolicy: Unsupported value: "Orphan": ${resource} are deleted with their ${dependant}; supported values: "Foreground", "Background"`,
    );
}
