import { ApiError, type StatusDetails } from './api-error.ts';

/** One answer a client can get: its HTTP status and what the client should make of it. */
export interface ErrorEntry {
  readonly status: number;
  /** One sentence a client can act on. */
  readonly meaning: string;
}

/**
 * Every `reason` of the platform's own `{"error", "reason"}` answers. A throw site names the
 * reason (`apiError('WorkspaceNotFound', ...)`); the status comes from here, never from the site.
 */
export const PLATFORM_ERRORS = {
  InvalidPathParameter: { status: 400, meaning: 'A path segment is not a valid name; fix the URL.' },
  JsonNestingTooDeep: { status: 400, meaning: 'The JSON body nests deeper than 100 levels; send a flatter document.' },
  InvalidLimit: {
    status: 400,
    meaning: 'The `limit` query parameter is not an integer in the allowed range; send one that is.',
  },
  InvalidContinueToken: {
    status: 400,
    meaning:
      'The `continue` token was not issued by this server for this query, was altered, or predates a signing key rotation; list again from the first page.',
  },
  InvalidRun: {
    status: 400,
    meaning: 'The new run has missing, unknown or invalid fields; correct the body as the message says.',
  },
  InvalidTaskResult: {
    status: 400,
    meaning:
      "The run task's callback is not HCP Terraform's task result document (`data.type` task-results, `attributes.status` running, passed or failed, and its outcomes); fix the field the message names.",
  },
  InvalidOverride: {
    status: 400,
    meaning: 'An override needs `{"reason": "..."}`: a reason of 1 to 1024 characters, recorded in the audit trail.',
  },
  InvalidLastEventId: {
    status: 400,
    meaning: 'The `Last-Event-ID` header is not a log line number; resend the id of the last event received.',
  },
  InvalidPhase: {
    status: 400,
    meaning: 'The phase is not one the request may set; use one of the phases the message lists.',
  },
  InvalidClaim: {
    status: 400,
    meaning:
      'The claim filter names an invalid project or workspace, or a workspace without its project; correct the filter.',
  },
  InvalidLogLines: {
    status: 400,
    meaning: 'The log chunk has an invalid `firstSeq` or `lines`; send a numbered chunk of 1 to the maximum lines.',
  },
  InvalidProjectToken: {
    status: 400,
    meaning:
      'The new Project token has a missing, unknown or invalid field, or a lifetime outside 10m to 8760h; correct it as the message says.',
  },
  InvalidPlanChanges: {
    status: 400,
    meaning:
      '`hasChanges` is reported only with phase Succeeded of a plan run, as a boolean; leave it out for an apply or another phase.',
  },
  InvalidMessage: { status: 400, meaning: 'The message is not a string within the length limit; shorten it.' },
  InvalidPlanJson: {
    status: 400,
    meaning:
      "The body is no plan JSON document (`terraform show -json`: an object with `format_version`); send the plan's.",
  },
  InvalidLease: {
    status: 400,
    meaning:
      'The lease id or lease length is missing or out of range; send the lease from the claim and an allowed length.',
  },
  MissingToken: {
    status: 401,
    meaning: 'The route needs a bearer token; log in or fetch a token and send `Authorization: Bearer <token>`.',
  },
  MalformedAuthorizationHeader: {
    status: 401,
    meaning: 'The `Authorization` header is not `Bearer <token>`; send it in that form.',
  },
  UnknownIssuer: {
    status: 401,
    meaning:
      'The token was issued by an issuer this server does not trust; use a token from the platform, its identity provider or the cluster.',
  },
  InvalidToken: { status: 401, meaning: 'The token is expired, badly signed or malformed; get a new token.' },
  AdminAccountDisabled: {
    status: 401,
    meaning: 'The admin account is disabled, so no admin token is accepted; use an OIDC or ServiceAccount token.',
  },
  MissingUsernameClaim: {
    status: 401,
    meaning:
      'The ID token lacks the claim the server reads the user name from (`OIDC_USERNAME_CLAIM`); ask for a token that carries it.',
  },
  InvalidUsernameClaim: {
    status: 401,
    meaning:
      "The ID token's user name claim (`OIDC_USERNAME_CLAIM`) holds the NUL character, which no record can hold; fix the name at the identity provider.",
  },
  RunNotFound: { status: 404, meaning: 'No run with this id exists in this project; check the id and the project.' },
  PlanJsonNotFound: {
    status: 404,
    meaning:
      "The run has no plan's JSON: it is no plan run, its controller uploaded none, or it was removed with the run's log after `RUN_LOG_RETENTION`.",
  },
  WorkspaceNotFound: {
    status: 404,
    meaning: 'The workspace does not exist in this project; create it or check its name.',
  },
  TokenNotFound: {
    status: 404,
    meaning: 'No live token of this name exists in this project (it may be revoked already); list the tokens.',
  },
  TokenRoleNotFound: {
    status: 404,
    meaning:
      "The token's role does not exist (a Role in the project's namespace, or a ClusterRole); create it or check its name.",
  },
  RolloutNotFound: {
    status: 404,
    meaning: 'The Rollout does not exist in this project; check its name.',
  },
  StageNotFound: {
    status: 404,
    meaning: "The Rollout has no stage for this workspace (stages are keyed by workspace); check the Rollout's stages.",
  },
  ApprovalNotFound: {
    status: 404,
    meaning:
      "The approver has no approval of this stage for the current revision (`status.stages[].approvals`), or of this plan for apply (its run's `planApproval.approvals`), to withdraw; check who approved it.",
  },
  BridgeNotConfigured: {
    status: 404,
    meaning: 'No identity bridge is deployed (`BRIDGE_UPSTREAM_URL`); log in with the identity provider directly.',
  },
  InvalidTaskResultToken: {
    status: 401,
    meaning:
      "The run task's access token is not the current one of a task result still waiting, or its deadline passed (RUN_TASK_TIMEOUT); a task uses the `access_token` of the request it answers, before its deadline.",
  },
  TaskResultTokenMismatch: {
    status: 403,
    meaning:
      "The access token belongs to another task result (another run, or another task): a token answers and reads only for the task result it was sent with; use that request's `task_result_callback_url`.",
  },
  RequestTimeout: { status: 408, meaning: 'The request did not arrive in time; send it again, faster.' },
  TokenAlreadyExists: {
    status: 409,
    meaning: 'A live token of this name exists in this project; revoke it first or choose another name.',
  },
  WorkspaceSuspended: {
    status: 409,
    meaning: 'The workspace is suspended (`spec.suspend`), so no new run starts; resume it first.',
  },
  ApplyNeedsPlan: {
    status: 409,
    meaning:
      'The workspace applies only reviewed plans (`spec.allowApplyWithoutPlan` is false); start a plan run and approve it for apply.',
  },
  ApprovalNotRequired: {
    status: 409,
    meaning: 'The stage does not require an approval, so there is nothing to approve.',
  },
  AlreadyApproved: {
    status: 409,
    meaning:
      'The stage is already approved for the current revision, or the caller has already given its approval of it or of the plan (a stage or an apply that needs several approvers counts each once); nothing to do.',
  },
  ApplyAlreadyStarted: {
    status: 409,
    meaning:
      "The plan's approvals already started its apply run, so an approval of it can no longer be withdrawn; cancel the apply run instead.",
  },
  ApproverIsAuthor: {
    status: 409,
    meaning:
      "Four eyes: the stage's approver may not be the principal who last changed the Rollout's revision, nor a plan's approver for apply the principal who started the plan where the Project's approval policy asks it; ask someone else to approve.",
  },
  OutsideApprovalWindow: {
    status: 409,
    meaning:
      "The Project's approval windows (spec.approvalPolicy.windows) refuse this promotion or apply now: the message names the window and when it opens (RFC 3339); retry then, or override with the `override` permission and a reason.",
  },
  ProjectFrozen: {
    status: 409,
    meaning:
      'The Project is frozen (spec.approvalPolicy.freeze.active): no promotion, approval or apply until it is lifted, unless overridden with the `override` permission and a reason.',
  },
  SoakTimeNotElapsed: {
    status: 409,
    meaning:
      "The stage before this one has not soaked for the stage's soakTime (spec.approvalPolicy.stages[].soakTime): the message says when it has; approve then.",
  },
  RevisionAuthorUnknown: {
    status: 409,
    meaning:
      "Four eyes cannot be checked: no author is recorded for the Rollout's current revision (it was written outside the API); write the revision again through the API, then ask someone else to approve.",
  },
  TaskResultFinal: {
    status: 409,
    meaning: 'The task result already passed, failed or timed out: a final result does not change.',
  },
  NothingToOverride: {
    status: 409,
    meaning:
      'The run did not fail on a mandatory run task before being claimed, nor is it a succeeded plan whose mandatory post_plan task failed or timed out (or it was overridden already): only such a run can be overridden to proceed.',
  },
  RunTasksPending: {
    status: 409,
    meaning:
      "The plan's run tasks at post_plan (issue 48) have not all answered yet (the message names them): approve it once they have; the run's `planApproval.blockedBy` says when.",
  },
  RunTaskFailed: {
    status: 409,
    meaning:
      'A mandatory run task at post_plan failed, or gave no answer before RUN_TASK_TIMEOUT (the message names it): the plan may not be applied unless a caller with the `override` verb lets it proceed (`POST .../runs/{plan}/override-tasks`), or plan again.',
  },
  NotASucceededPlan: {
    status: 409,
    meaning: 'Only a plan run that succeeded can be approved for apply; approve such a run.',
  },
  PlanStale: {
    status: 409,
    meaning:
      'The plan was superseded by a newer plan or apply of the workspace, or finished longer ago than `PLAN_APPROVAL_MAX_AGE`; plan again and approve the new plan.',
  },
  PlanWorkspaceChanged: {
    status: 409,
    meaning:
      'The plan was made for another Workspace object or spec: the Workspace was deleted and re-created, its spec changed, or a VariableSet it refers to changed since the plan (the message names which); plan again and approve the new plan.',
  },
  VariableSetNotFound: {
    status: 409,
    meaning:
      'The workspace refers to a VariableSet that does not exist; create the VariableSet or change the workspace.',
  },
  VariableSecretNotAllowed: {
    status: 409,
    meaning:
      "A variable refers to a Secret other than its VariableSet's own; keep sensitive values in the VariableSet.",
  },
  VariableSecretNotFound: {
    status: 409,
    meaning: "A variable refers to a key missing from its VariableSet's Secret; set the value again.",
  },
  InvalidPhaseTransition: {
    status: 409,
    meaning: "The run cannot move from its current phase to the one asked; read the run's phase first.",
  },
  NotAPlanRun: {
    status: 409,
    meaning: "Only a plan run has a plan's JSON; upload it for the plan run, not the apply.",
  },
  LeaseNotHeld: {
    status: 409,
    meaning: 'The lease is not the current, unexpired lease of the run; stop working on the run.',
  },
  LogSequenceGap: {
    status: 409,
    meaning: 'The log chunk starts after the next expected line; send the missing lines first.',
  },
  LogChunkConflict: {
    status: 409,
    meaning: 'The log chunk overlaps stored lines with different content; resend exactly the chunk that was stored.',
  },
  RunLogRemoved: {
    status: 410,
    meaning:
      "The run's log was removed after `RUN_LOG_RETENTION`; the run record remains (its `logRemovedAt` says when).",
  },
  PayloadTooLarge: { status: 413, meaning: 'The request body exceeds the size limit; send a smaller body.' },
  UriTooLong: {
    status: 414,
    meaning:
      'The request target (path and query) exceeds 8 KiB; send a shorter one, with fewer or shorter query parameters.',
  },
  TooManyStreams: {
    status: 429,
    meaning: 'The principal has as many run-log streams open as allowed; close one or retry after `Retry-After`.',
  },
  TooManyWatches: {
    status: 429,
    meaning:
      'The principal has as many resource watches open as allowed (`MAX_WATCHES_PER_PRINCIPAL`); close one or retry after `Retry-After`.',
  },
  RequestHeaderFieldsTooLarge: {
    status: 431,
    meaning: 'The request headers exceed the size limit; send fewer or shorter headers.',
  },
  InternalError: {
    status: 500,
    meaning: 'The server failed unexpectedly (a bug, logged by the server); retry, and report it if it persists.',
  },
  FunctionUnreachable: {
    status: 502,
    meaning: 'The function serving the route failed before answering; retry shortly.',
  },
  BridgeUnavailable: { status: 502, meaning: 'The identity bridge cannot be reached; retry shortly.' },
  FunctionUnavailable: {
    status: 503,
    meaning: 'The function serving the route has no ready replica; retry after `Retry-After`.',
  },
  KubernetesUnavailable: {
    status: 503,
    meaning: 'The Kubernetes API cannot be reached or could not complete the request; retry after `Retry-After`.',
  },
  IdentityProviderUnavailable: {
    status: 503,
    meaning: "The identity provider's signing keys cannot be fetched; retry after `Retry-After`.",
  },
  ShuttingDown: { status: 503, meaning: 'This server instance is shutting down; retry, and another instance answers.' },
  Starting: {
    status: 503,
    meaning:
      'This server instance is still starting (it holds its port while it connects to the cluster and the database); retry after `Retry-After`.',
  },
  DatabaseNotConfigured: {
    status: 503,
    meaning: 'The run history database is not configured (`DATABASE_URL`); the operator must set it.',
  },
  DatabaseUnavailable: {
    status: 503,
    meaning: 'The run history database cannot be reached; retry after `Retry-After`.',
  },
  AuditUnavailable: {
    status: 503,
    meaning:
      'With `AUDIT_MODE=blocking`, a write is refused because its audit event cannot be written to the database; nothing was done. Retry after `Retry-After`.',
  },
  CustomResourceDefinitionsMissing: {
    status: 503,
    meaning:
      'The cluster lacks the platform CustomResourceDefinitions; the operator must install them (`npm run local:setup` in a checkout, or the chart).',
  },
  FunctionTimeout: {
    status: 504,
    meaning:
      "The function serving the route did not accept the connection or answer within the gateway's timeout; retry shortly.",
  },
} as const satisfies Record<string, ErrorEntry>;

/**
 * The login route's answers. Login reads a password, not a token, so a bad header is the
 * client's request to fix (400) and a refused login is 403, where every other route says 401.
 */
export const LOGIN_ERRORS = {
  MissingPassword: {
    status: 400,
    meaning: 'No `Authorization` header was sent; send the password as `Authorization: Bearer <password>`.',
  },
  MalformedAuthorizationHeader: {
    status: 400,
    meaning: 'The `Authorization` header is not `Bearer <password>`; send it in that form.',
  },
  InvalidPassword: {
    status: 403,
    meaning: 'The password is wrong (or the stored hash is unusable); try the right password.',
  },
  AdminAccountDisabled: {
    status: 403,
    meaning: 'The admin account is disabled, whatever the password; log in through the identity provider.',
  },
  TooManyFailedLogins: {
    status: 429,
    meaning: 'Too many failed logins came from this client; wait for `Retry-After` seconds.',
  },
  TooManyFailedLoginsForAccount: {
    status: 429,
    meaning:
      "The admin account's failed-login budget for this window is spent, by all clients together; every client waits for `Retry-After` seconds.",
  },
  TooManyLoginsInProgress: {
    status: 429,
    meaning: 'The server is checking as many passwords as it allows at once; retry after `Retry-After`.',
  },
} as const satisfies Record<string, ErrorEntry>;

/**
 * Kubernetes' own `StatusReason` vocabulary, as the resource routes answer it in a `Status`
 * object (and the generic ones as `{"error", "reason"}` elsewhere). Those the server never
 * names itself reach the client from the cluster, passed on by `clusterFailure`.
 */
export const KUBERNETES_STATUS_REASONS = {
  BadRequest: {
    status: 400,
    meaning: 'The request cannot be read (body, query or path); correct it as the message says.',
  },
  Forbidden: {
    status: 403,
    meaning: 'The caller is known but not allowed to do this; ask for the RBAC permission the message names.',
  },
  NotFound: { status: 404, meaning: 'The route or object does not exist; check the path and the name.' },
  MethodNotAllowed: {
    status: 405,
    meaning: 'The path exists but not for this method; use one of the methods in the `Allow` header.',
  },
  AlreadyExists: {
    status: 409,
    meaning: 'An object with this name already exists; choose another name or update the existing object.',
  },
  Conflict: {
    status: 409,
    meaning: 'The object changed since it was read (`resourceVersion`); read it again and retry the write.',
  },
  Gone: {
    status: 410,
    meaning: 'The requested resource version is no longer available; list again and watch from the new version.',
  },
  NotAcceptable: {
    status: 406,
    meaning: 'No media type in `Accept` is one the server answers in; accept `application/json` (or a Table).',
  },
  Expired: { status: 410, meaning: 'The `continue` token or resource version has expired; list again from the start.' },
  UnsupportedMediaType: {
    status: 415,
    meaning: "The body's `Content-Type` is not one this operation accepts; use one the message lists.",
  },
  Invalid: { status: 422, meaning: 'The object fails validation; fix the fields named in `details.causes`.' },
  Timeout: {
    status: 504,
    meaning:
      'The request did not complete within its `timeout` (at most 60 s); a write may still have been made: read the object before retrying it.',
  },
} as const satisfies Record<string, ErrorEntry>;

/** `details.causes[].reason` of a `Status`: Kubernetes' `CauseType` values the server names. */
export const KUBERNETES_CAUSE_TYPES = {
  FieldValueInvalid: { meaning: 'The value of the field in `field` is not valid; the message says why.' },
} as const satisfies Record<string, { meaning: string }>;

/** `reason` of the run-log stream's last event, which tells the client how to continue. */
export const STREAM_END_REASONS = {
  TokenExpired: {
    event: 'expired',
    meaning: 'The token that opened the stream expired; get a new token and reconnect with `Last-Event-ID`.',
  },
  AdminAccountDisabled: {
    event: 'expired',
    meaning: 'The admin account was disabled; reconnect with another kind of token and `Last-Event-ID`.',
  },
  SigningKeyRotated: {
    event: 'expired',
    meaning: 'The admin token signing key was rotated; log in again and reconnect with `Last-Event-ID`.',
  },
  InvalidToken: {
    event: 'expired',
    meaning: 'The token is no longer accepted (for example after a shorter TTL); get a new token and reconnect.',
  },
  SlowConsumer: {
    event: 'resume',
    meaning: 'The client read too slowly to keep up; reconnect with `Last-Event-ID`, nothing is lost.',
  },
  LogRemoved: {
    event: 'removed',
    meaning:
      "The run's log was removed after `RUN_LOG_RETENTION` before every line was sent; do not reconnect (the run record remains).",
  },
  RunRemoved: {
    event: 'removed',
    meaning: 'The run was removed after `RUN_HISTORY_RETENTION` before every line was sent; do not reconnect.',
  },
} as const satisfies Record<string, { event: string; meaning: string }>;

export type PlatformReason = keyof typeof PLATFORM_ERRORS;
export type KubernetesStatusReason = keyof typeof KUBERNETES_STATUS_REASONS;
export type LoginReason = keyof typeof LOGIN_ERRORS;
export type StreamEndReason = keyof typeof STREAM_END_REASONS;
export type KubernetesCauseType = keyof typeof KUBERNETES_CAUSE_TYPES;
/** A reason any route may answer with: the platform's own, or Kubernetes' generic ones. */
export type ErrorReason = PlatformReason | KubernetesStatusReason;

type AnswerCatalogue = Readonly<Record<ErrorReason, ErrorEntry>>;
const ANSWERS: AnswerCatalogue = { ...KUBERNETES_STATUS_REASONS, ...PLATFORM_ERRORS };

/** Reasons the catalogue gives a status, among those any route may answer. */
export type ReasonWithStatus<S extends number> = {
  [R in ErrorReason]: (R extends PlatformReason
    ? (typeof PLATFORM_ERRORS)[R]
    : (typeof KUBERNETES_STATUS_REASONS)[R & KubernetesStatusReason])['status'] extends S
    ? R
    : never;
}[ErrorReason];

/** The status the catalogue gives a reason. */
export function errorStatus(reason: ErrorReason): number {
  return ANSWERS[reason].status;
}

/** The `Retry-After` header of an answer that asks the client to come back in so many seconds. */
export function retryAfter(seconds: number): Record<string, string> {
  return { 'retry-after': String(seconds) };
}

/**
 * Headers every answer of a status carries: a 401 names the scheme to authenticate with
 * (RFC 9110), and a 503 says when to retry (5 seconds unless the site knows better).
 */
function statusHeaders(status: number, headers: Record<string, string>): Record<string, string> {
  if (status === 401) return { 'www-authenticate': 'Bearer realm="platform-api"', ...headers };
  if (status === 503) return { ...retryAfter(5), ...headers };
  return headers;
}

/**
 * An error that is its own answer: the catalogue gives its status and headers from its reason. A
 * domain's errors extend it (RunNotFoundError, DatabaseUnavailableError, …), so whatever layer
 * raises one, the chain's error filter answers it as the catalogue says, with no mapping per
 * function; a site with no error class of its own raises one with `apiError`.
 */
export class CatalogueError extends ApiError {
  constructor(reason: ErrorReason, message: string, headers: Record<string, string> = {}, details?: StatusDetails) {
    const status = errorStatus(reason);
    super(status, reason, message, statusHeaders(status, headers), details);
  }
}

/**
 * The error answering `reason`, with the status the catalogue gives it; `details` name the object it
 * is about (shown in a Kubernetes `Status`, on the routes that answer those).
 */
export function apiError(
  reason: ErrorReason,
  message: string,
  headers: Record<string, string> = {},
  details?: StatusDetails,
): ApiError {
  return new CatalogueError(reason, message, headers, details);
}

/** An answer of the login route, with the status its section of the catalogue gives it. */
export function loginError(reason: LoginReason, message: string, headers: Record<string, string> = {}): ApiError {
  return new ApiError(LOGIN_ERRORS[reason].status, reason, message, headers);
}

/** A 404, `NotFound` unless a more precise reason of that status is named. */
export function notFound(message: string, reason: ReasonWithStatus<404> = 'NotFound'): ApiError {
  return apiError(reason, message);
}

/** A 401 with its `WWW-Authenticate` challenge. */
export function unauthorized(message: string, reason: ReasonWithStatus<401>): ApiError {
  return apiError(reason, message);
}

/** The answer under /bridge/ when no identity bridge is deployed. */
export function bridgeNotConfigured(): ApiError {
  return apiError('BridgeNotConfigured', 'no identity bridge is configured (BRIDGE_UPSTREAM_URL)');
}

/** 413 for a body over the limit, answered once the caller is known and before any handler runs, whatever the runtime. */
export function payloadTooLarge(maxBytes: number): ApiError {
  return apiError('PayloadTooLarge', `request body exceeds ${maxBytes} bytes`);
}
