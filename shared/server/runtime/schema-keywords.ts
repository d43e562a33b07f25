/**
 * The annotation a request schema (or one of its top-level properties) carries to name the
 * `reason` of a refusal; without one the refusal is `BadRequest`.
 */
export const ERROR_REASON_KEYWORD = 'x-error-reason';

/** The keyword definition every checker of request schemas needs (the tests' meta-schema check too). */
export const ERROR_REASON_DEFINITION = { keyword: ERROR_REASON_KEYWORD, schemaType: 'string' } as const;
