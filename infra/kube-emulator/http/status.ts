// Kubernetes `Status` failures, phrased the way kube-apiserver phrases them (k8s.io/apimachinery/pkg/api/errors).

/** The group and plural resource an error is about. */
export interface GroupResource {
  group: string;
  resource: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: { reason: string; message: string; field: string }[];
}

export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Forbidden'
  | 'Unauthorized'
  | 'Invalid'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'UnsupportedMediaType'
  | 'Expired'
  | 'InternalError';

/** A request failure that the server answers with a Kubernetes `Status` body. */
export class KubeStatusError extends Error {
  readonly code: number;
  readonly reason: StatusReason;
  readonly details: StatusDetails | undefined;

  constructor(code: number, reason: StatusReason, message: string, details?: StatusDetails) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  /** The `Status` object sent on the wire. */
  toStatus(): Record<string, unknown> {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

/** `resource` for the core group, `resource.group` otherwise, as in `projects.platform.dev "x" not found`. */
export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

function resourceDetails(gr: GroupResource, name: string): StatusDetails {
  return { name, ...(gr.group ? { group: gr.group } : {}), kind: gr.resource };
}

/** 404 for a missing object. */
export function notFound(gr: GroupResource, name: string): KubeStatusError {
  return new KubeStatusError(
    404,
    'NotFound',
    `${qualifiedResource(gr)} "${name}" not found`,
    resourceDetails(gr, name),
  );
}

/** 404 for a path the server does not serve. */
export function pathNotFound(): KubeStatusError {
  return new KubeStatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/** 409 when creating an object whose name is taken. */
export function alreadyExists(gr: GroupResource, name: string): KubeStatusError {
  return new KubeStatusError(
    409,
    'AlreadyExists',
    `${qualifiedResource(gr)} "${name}" already exists`,
    resourceDetails(gr, name),
  );
}

/** 409 when a write carries a stale resourceVersion. */
export function conflict(gr: GroupResource, name: string): KubeStatusError {
  return new KubeStatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    resourceDetails(gr, name),
  );
}

/** 403 with the authorizer's wording, e.g. `User "u" cannot list resource "secrets" in API group "" in the namespace "ns"`. */
export function forbidden(gr: GroupResource | undefined, name: string, message: string): KubeStatusError {
  if (!gr) return new KubeStatusError(403, 'Forbidden', `forbidden: ${message}`, {});
  const subject = name ? `${qualifiedResource(gr)} "${name}"` : qualifiedResource(gr);
  return new KubeStatusError(403, 'Forbidden', `${subject} is forbidden: ${message}`, resourceDetails(gr, name));
}

/** 401 for a missing or unknown bearer token. */
export function unauthorized(): KubeStatusError {
  return new KubeStatusError(401, 'Unauthorized', 'Unauthorized');
}

/** The error types of k8s.io/apimachinery/pkg/util/validation/field, as `details.causes[].reason`. */
export type FieldErrorType =
  | 'FieldValueInvalid'
  | 'FieldValueTypeInvalid'
  | 'FieldValueRequired'
  | 'FieldValueForbidden'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany';

/** One field error of a 422 Invalid answer. */
export interface FieldError {
  field: string;
  type: FieldErrorType;
  detail: string;
  value?: unknown;
}

// How field.Error prints each type, and whether the bad value is part of the message.
const FIELD_ERROR_WORDING: Record<FieldErrorType, { label: string; showsValue: boolean }> = {
  FieldValueInvalid: { label: 'Invalid value', showsValue: true },
  FieldValueTypeInvalid: { label: 'Invalid value', showsValue: true },
  FieldValueRequired: { label: 'Required value', showsValue: false },
  FieldValueForbidden: { label: 'Forbidden', showsValue: false },
  FieldValueNotSupported: { label: 'Unsupported value', showsValue: true },
  FieldValueDuplicate: { label: 'Duplicate value', showsValue: true },
  FieldValueTooLong: { label: 'Too long', showsValue: false },
  FieldValueTooMany: { label: 'Too many', showsValue: true },
};

/** A JSON value printed the way Go's `%#v` prints its decoded form (field.Error does so for bad values). */
export function goValueString(value: unknown): string {
  if (value === null || value === undefined) return 'interface {}(nil)';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map(goValueString).join(', ')}}`;
  if (typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${goValueString((value as Record<string, unknown>)[key])}`);
    return `map[string]interface {}{${entries.join(', ')}}`;
  }
  return String(value);
}

function describeFieldError(error: FieldError): string {
  const wording = FIELD_ERROR_WORDING[error.type];
  // field.Error prints a missing (nil) bad value as the string "null".
  const value = error.value === null || error.value === undefined ? '"null"' : goValueString(error.value);
  const head = wording.showsValue ? `${wording.label}: ${value}` : wording.label;
  return `${error.field}: ${error.detail ? `${head}: ${error.detail}` : head}`;
}

/** 422 listing field errors: `ServiceAccount "X" is invalid: metadata.name: Invalid value: ...`. */
export function invalid(kind: { group: string; kind: string }, name: string, errors: FieldError[]): KubeStatusError {
  const messages = errors.map(describeFieldError);
  const summary = messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
  const qualifiedKind = kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
  return new KubeStatusError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${summary}`, {
    name,
    ...(kind.group ? { group: kind.group } : {}),
    kind: kind.kind,
    causes: errors.map((error, i) => ({
      reason: error.type,
      message: messages[i]!.slice(error.field.length + 2),
      field: error.field,
    })),
  });
}

/** 400 for a request the server cannot interpret. */
export function badRequest(message: string): KubeStatusError {
  return new KubeStatusError(400, 'BadRequest', message);
}

/** 405 for a verb the resource does not support. */
export function methodNotAllowed(): KubeStatusError {
  return new KubeStatusError(
    405,
    'MethodNotAllowed',
    'the server does not allow this method on the requested resource',
  );
}

/** 415 for a patch type the resource does not accept. */
export function unsupportedMediaType(accepted: string[]): KubeStatusError {
  return new KubeStatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    {},
  );
}

/** 410 for a watch or continue token older than the retained history. */
export function expired(message: string): KubeStatusError {
  return new KubeStatusError(410, 'Expired', message);
}
