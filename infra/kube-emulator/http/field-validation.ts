// The `fieldValidation` parameter of create, update and patch: what the server does about fields a custom resource's
// schema does not declare, after pruning has dropped them. `Warn` is the server's default (clients such as kubectl
// send `Strict`).
import { badRequest, invalid } from './status.ts';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

const DIRECTIVES: readonly string[] = ['Ignore', 'Warn', 'Strict'];

// The options object each write verb's parameters decode into, named in the 422 for an unsupported directive.
const OPTIONS_KIND: Record<string, string> = {
  create: 'CreateOptions',
  update: 'UpdateOptions',
  patch: 'PatchOptions',
};

/** The request's directive; 422 for a value the server does not support, as its options validation answers. */
export function fieldValidationDirective(url: URL, verb: string): FieldValidation {
  const directive = url.searchParams.get('fieldValidation') ?? '';
  if (directive === '') return 'Warn';
  if (DIRECTIVES.includes(directive)) return directive as FieldValidation;
  throw invalid({ group: 'meta.k8s.io', kind: OPTIONS_KIND[verb] ?? 'CreateOptions' }, '', [
    {
      field: 'fieldValidation',
      type: 'FieldValueNotSupported',
      value: directive,
      detail: 'supported values: "", "Ignore", "Strict", "Warn"',
    },
  ]);
}

/**
 * Applies the directive to the pruned fields: `Strict` fails with 400 (`decodeContext` is what the decoder prefixes,
 * e.g. `Workspace in version "v1" cannot be handled as a Workspace: `), `Warn` answers the warnings to send.
 */
export function unknownFieldWarnings(
  directive: FieldValidation,
  prunedFields: string[],
  decodeContext: string,
): string[] {
  const messages = prunedFields.map((field) => `unknown field "${field}"`);
  if (directive === 'Ignore' || messages.length === 0) return [];
  if (directive === 'Strict') throw badRequest(`${decodeContext}strict decoding error: ${messages.join(', ')}`);
  return messages;
}
