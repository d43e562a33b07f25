import { parseJson } from './http-messages.ts';
import { isKubeObject } from '../objects/kube-object.ts';
import type { Preconditions } from '../storage/resource-store.ts';
import { badRequest, invalid, type FieldError } from './status.ts';

/** What the emulator does with a delete's `DeleteOptions`: a dry run, and the preconditions. */
export interface EmulatedDeleteOptions {
  dryRun: boolean;
  preconditions: Preconditions;
}

const PROPAGATION_POLICIES = ['Foreground', 'Background', 'Orphan'];

/**
 * The `DeleteOptions` of a delete or deletecollection, read as kube-apiserver's delete handler reads
 * them: from the body when it has one (kubectl 1.33 sends `{"kind":"DeleteOptions","dryRun":["All"]}`),
 * from the query otherwise; then validated as `ValidateDeleteOptions` does (422 `Invalid` of
 * `DeleteOptions.meta.k8s.io`). `propagationPolicy` and `gracePeriodSeconds` are checked, not acted on.
 */
export function readDeleteOptions(url: URL, body: string): EmulatedDeleteOptions {
  const options = body.trim() === '' ? fromQuery(url.searchParams) : fromBody(body);
  const errors: FieldError[] = [];
  for (const value of options.dryRun)
    if (value !== 'All')
      errors.push({ field: 'dryRun', type: 'FieldValueNotSupported', detail: 'supported values: "All"', value });
  const policy = options.propagationPolicy;
  if (policy !== undefined && !PROPAGATION_POLICIES.includes(policy))
    errors.push({
      field: 'propagationPolicy',
      type: 'FieldValueNotSupported',
      detail: 'supported values: "Foreground", "Background", "Orphan"',
      value: policy,
    });
  if (policy !== undefined && options.orphanDependents !== undefined)
    errors.push({
      field: 'propagationPolicy',
      type: 'FieldValueInvalid',
      detail: 'orphanDependents and deletionPropagation cannot be both set',
      value: policy,
    });
  if (errors.length > 0) throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', errors);
  return { dryRun: options.dryRun.length > 0, preconditions: options.preconditions };
}

interface RawDeleteOptions {
  dryRun: string[];
  propagationPolicy?: string;
  orphanDependents?: unknown;
  preconditions: Preconditions;
}

function fromQuery(query: URLSearchParams): RawDeleteOptions {
  const grace = query.get('gracePeriodSeconds');
  if (grace !== null && !/^-?[0-9]+$/.test(grace))
    throw badRequest(`gracePeriodSeconds: invalid value "${grace}": must be an integer`);
  return {
    dryRun: query.getAll('dryRun'),
    ...(query.has('propagationPolicy') ? { propagationPolicy: query.get('propagationPolicy')! } : {}),
    ...(query.has('orphanDependents') ? { orphanDependents: query.get('orphanDependents') } : {}),
    preconditions: {},
  };
}

// Decoded as the DeleteOptions type: a field of the wrong type is a 400 like the real decoder's.
function fromBody(body: string): RawDeleteOptions {
  const parsed = parseJson(body);
  if (!isKubeObject(parsed)) throw badRequest('the body of a delete must be a DeleteOptions object');
  const { dryRun = [], propagationPolicy, orphanDependents, preconditions = {}, gracePeriodSeconds } = parsed;
  if (!Array.isArray(dryRun) || dryRun.some((value) => typeof value !== 'string'))
    throw badRequest('DeleteOptions.dryRun: expected a list of strings');
  if (propagationPolicy !== undefined && propagationPolicy !== null && typeof propagationPolicy !== 'string')
    throw badRequest('DeleteOptions.propagationPolicy: expected a string');
  if (gracePeriodSeconds !== undefined && gracePeriodSeconds !== null && !Number.isInteger(gracePeriodSeconds))
    throw badRequest('DeleteOptions.gracePeriodSeconds: expected an integer');
  if (preconditions !== null && !isKubeObject(preconditions))
    throw badRequest('DeleteOptions.preconditions: expected an object');
  return {
    dryRun: dryRun as string[],
    ...(typeof propagationPolicy === 'string' ? { propagationPolicy } : {}),
    ...(orphanDependents !== undefined && orphanDependents !== null ? { orphanDependents } : {}),
    preconditions: (preconditions ?? {}) as Preconditions,
  };
}
