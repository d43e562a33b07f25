import type { ApiError } from '../../../shared/base/http/api-error.ts';
import { apiError } from '../../../shared/base/http/error-catalogue.ts';

// A delete's options are DeleteOptions (`delete-options.ts`).
type WriteVerb = 'create' | 'update' | 'patch' | 'apply';

const FIELD_VALIDATION = ['Ignore', 'Warn', 'Strict'];
// Printable ASCII up to 128 characters, as kube-apiserver validates a field manager.
const FIELD_MANAGER = /^[\x20-\x7e]{1,128}$/;

function invalid(message: string): ApiError {
  return apiError('BadRequest', message);
}

/**
 * The write options of a request that go on to the cluster, each checked: `dryRun=All`, `fieldManager`,
 * `fieldValidation`, and `force` (server-side apply only, where `fieldManager` is required).
 * Anything else in the query stays behind.
 */
export function writeOptions(query: URLSearchParams, verb: WriteVerb): URLSearchParams {
  const options = new URLSearchParams();
  const dryRun = query.getAll('dryRun');
  if (dryRun.length > 0) {
    if (dryRun.some((value) => value !== 'All'))
      throw invalid(`dryRun: Unsupported value: "${dryRun.find((value) => value !== 'All')}": supported values: "All"`);
    options.set('dryRun', 'All');
  }
  const manager = query.get('fieldManager');
  if (manager !== null) {
    if (!FIELD_MANAGER.test(manager))
      throw invalid('fieldManager: Invalid value: must be 1 to 128 printable ASCII characters');
    options.set('fieldManager', manager);
  } else if (verb === 'apply') {
    throw invalid('fieldManager: Required value: is required for apply patch');
  }
  const validation = query.get('fieldValidation');
  if (validation !== null) {
    if (!FIELD_VALIDATION.includes(validation))
      throw invalid(
        `fieldValidation: Unsupported value: "${validation}": supported values: "Ignore", "Strict", "Warn"`,
      );
    options.set('fieldValidation', validation);
  }
  const force = query.get('force');
  if (force !== null) {
    if (verb !== 'apply') throw invalid('force: Forbidden: may not be specified for non-apply patch');
    if (force !== 'true' && force !== 'false') throw invalid(`force: Invalid value: "${force}": must be true or false`);
    options.set('force', force);
  }
  return options;
}
