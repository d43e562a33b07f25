import type { Principal } from '../../auth/principal.ts';
import { clientAddress } from '../../auth/login-throttle.ts';
import type { AuthorizationDecision } from '../../authz/authorization-decision.ts';
import { isNonResource, type AuthorizationAttributes } from '../../authz/authorizer.ts';
import type { AuditGroup, AuditLevel, AuditPolicy } from '../../base/config/audit-settings.ts';
import type { ApiResponse } from '../../base/http/api-request.ts';
import { answeredFailure } from '../../base/http/answered-failure.ts';
import {
  ADMIN_BYPASS_ANNOTATION,
  RUN_ANNOTATION,
  DRY_RUN_ANNOTATION,
  type HandlerAuditNotes,
} from './audit-annotations.ts';
import { redactPathAndQuery } from '../../base/logging/redaction.ts';
import {
  DECISION_ANNOTATION,
  REASON_ANNOTATION,
  type AuditEvent,
  type AuditObjectReference,
  type AuditStage,
  type AuditUser,
} from './audit-event.ts';

/** What the chain learnt about a request that its audit event reports (shared/runtime's FilteredRequest). */
export interface AuditedRequest extends HandlerAuditNotes {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | undefined>;
  remoteAddress: string;
  route?: { operationId: string; target: string };
  params?: Record<string, string>;
  principal?: Principal | null;
  authorization?: AuthorizationDecision;
  authorizationAsked?: AuthorizationAttributes;
  auditAnnotations?: Record<string, string>;
  /** The body, when the level is `Request` and the route's function allows recording it. */
  auditRequestObject?: unknown;
}

/** Where the request came from and when: fixed when it arrives, before any filter runs. */
export interface AuditReceipt {
  auditID: string;
  receivedAt: Date;
  trustedProxyHops: number;
  apiGroup: string;
}

const REFUSAL_STATUSES = new Set([401, 403, 429]);
// `approve` changes state as a write does: an approval is a Rollout's patch, an apply run's creation (issue 37);
// so does `override` where it is a route's own verb: a run failed by a mandatory task proceeds (issue 48).
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection', 'approve', 'override']);
const USER_AGENT_MAX = 512;
const ANONYMOUS: AuditUser = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

/** Whether a Kubernetes verb changes something. */
export function isWriteVerb(verb: string): boolean {
  return WRITE_VERBS.has(verb);
}

/** The request's verb as kube-apiserver's audit names it: the authorized verb, else the lower-case method. */
export function auditVerb(request: AuditedRequest): string {
  return request.authorizationAsked?.verb ?? request.method.toLowerCase();
}

/** Which of the policy's groups the request belongs to: the first that fits (audit-settings.ts). */
export function auditGroup(request: AuditedRequest, status: number, streaming: boolean): AuditGroup {
  if (REFUSAL_STATUSES.has(status)) return 'refusal';
  if (request.route?.operationId === 'login') return 'login';
  if (request.route?.target === 'internal') return 'controller';
  const verb = auditVerb(request);
  if (verb === 'watch' || streaming) return 'watch';
  if (isWriteVerb(verb)) return 'write';
  return 'read';
}

/** The level the policy sets for the request, `None` when it is not recorded. */
export function auditLevel(
  policy: AuditPolicy,
  request: AuditedRequest,
  status: number,
  streaming: boolean,
): AuditLevel {
  return policy[auditGroup(request, status, streaming)];
}

/**
 * The event of one stage of a request, at a recorded level. Built as one literal with every member
 * in its place, an absent one `undefined` (which JSON leaves out): every event then has one shape,
 * which V8 builds and serialises faster than an object assembled by spreads (issue 22, item 6).
 */
export function auditEvent(
  receipt: AuditReceipt,
  request: AuditedRequest,
  response: Pick<ApiResponse, 'status' | 'body'> | undefined,
  stage: AuditStage,
  level: Exclude<AuditLevel, 'None'>,
  extraAnnotations?: Record<string, string>,
): AuditEvent {
  // A failure's JSON answer is read once, for its reason and its message.
  const failure = response && response.status >= 400 ? answeredFailure(response) : undefined;
  const userAgent = request.headers['user-agent'];
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level,
    auditID: receipt.auditID,
    stage,
    requestURI: redactPathAndQuery(request.path, request.query),
    verb: auditVerb(request),
    user: auditUser(request.principal ?? request.establishedPrincipal),
    impersonatedUser: impersonatedUser(request.authorization),
    sourceIPs: sourceIps(request, receipt.trustedProxyHops),
    userAgent: userAgent ? userAgent.slice(0, USER_AGENT_MAX) : undefined,
    objectRef: objectReference(request, receipt.apiGroup),
    // RequestReceived is written before there is an answer (AUDIT_MODE=blocking): no status yet.
    responseStatus: response && {
      metadata: {},
      status: response.status < 400 ? 'Success' : 'Failure',
      code: response.status,
      reason: failure?.reason || undefined,
    },
    requestObject: level === 'Request' ? request.auditRequestObject : undefined,
    requestReceivedTimestamp: receivedMicroTime(receipt.receivedAt.getTime()),
    stageTimestamp: stageMicroTime(Date.now()),
    annotations: eventAnnotations(request, response?.status, failure?.message, extraAnnotations),
  };
}

/**
 * A timestamp as Kubernetes' MicroTime writes it (RFC 3339 with exactly six fractional digits): Go's
 * parser of an audit log (`metav1.MicroTime`) refuses the three a JavaScript ISO string has.
 */
export function microTime(date: Date): string {
  return date.toISOString().replace('Z', '000Z');
}

/** `microTime` of epoch milliseconds, remembering the last: the events of one millisecond share the formatting. */
function rememberingMicroTime(): (ms: number) => string {
  let lastMs = Number.NaN;
  let lastText = '';
  return (ms) => {
    if (ms !== lastMs) {
      lastMs = ms;
      lastText = microTime(new Date(ms));
    }
    return lastText;
  };
}

// One each: a request's arrival and its event's stage are apart, and would displace each other.
const receivedMicroTime = rememberingMicroTime();
const stageMicroTime = rememberingMicroTime();

/** The authenticated principal as kube-apiserver's `user`; anonymous on open routes and before authentication. */
export function auditUser(principal: Principal | null | undefined): AuditUser {
  if (!principal) return ANONYMOUS;
  switch (principal.type) {
    case 'admin':
      return { username: 'admin' };
    case 'oidc':
      return { username: principal.name, ...(principal.groups.length > 0 ? { groups: principal.groups } : {}) };
    case 'serviceaccount':
      return {
        username: principal.name,
        uid: principal.uid,
        groups: principal.groups,
        ...(Object.keys(principal.extra).length > 0 ? { extra: principal.extra } : {}),
      };
    case 'runtask':
      return { username: principal.name, extra: { 'platform-api/task-result': [principal.taskResult] } };
  }
}

/** The ServiceAccount whose permissions allowed an OIDC user's request: the server acted with them. */
function impersonatedUser(decision: AuthorizationDecision | undefined): AuditUser | undefined {
  const account = decision?.grant?.asServiceAccount;
  if (!account) return undefined;
  return {
    username: `system:serviceaccount:${account.namespace}:${account.name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${account.namespace}`, 'system:authenticated'],
  };
}

/** The client as the trusted proxy hops give it, then the peer, as kube-apiserver lists `sourceIPs`. */
function sourceIps(request: AuditedRequest, trustedProxyHops: number): string[] {
  const client = clientAddress(request.remoteAddress, request.headers['x-forwarded-for'], trustedProxyHops);
  return client === request.remoteAddress ? [client] : [client, request.remoteAddress];
}

/**
 * The object the request acted on, from what was authorized; a run's id is its `uid`. As kube-apiserver
 * fills it from the request object, a create's name and namespace, which its path does not give, come
 * from what its handler read in the body (or the name the cluster gave it). The controller's routes are
 * non-resource paths: a run they act on (by path, or the run a claim was given) is named as `runs` of
 * the platform's group, so a run's whole story is found by id.
 */
function objectReference(request: AuditedRequest, apiGroup: string): AuditObjectReference | undefined {
  const attributes = request.authorizationAsked;
  const run = request.params?.run ?? request.auditAnnotations?.[RUN_ANNOTATION];
  if (attributes && isNonResource(attributes) && run !== undefined) {
    return { resource: 'runs', uid: run, apiGroup, apiVersion: 'v1alpha1' };
  }
  if (!attributes || isNonResource(attributes)) return undefined;
  return {
    resource: attributes.resource,
    namespace: attributes.namespace ?? request.auditObject?.namespace,
    name: attributes.name ?? request.auditObject?.name,
    uid: run,
    apiGroup: attributes.group || undefined,
    apiVersion: attributes.group === apiGroup ? 'v1alpha1' : 'v1',
    subresource: attributes.subresource || undefined,
  };
}

/**
 * kube-apiserver's decision annotations once authorization ran (allowed and why, or refused), a dry
 * run's mark, then the chain's own and the stage's; `undefined` when there are none.
 */
function eventAnnotations(
  request: AuditedRequest,
  status: number | undefined,
  failureMessage: string | undefined,
  extraAnnotations: Record<string, string> | undefined,
): Record<string, string> | undefined {
  let annotations: Record<string, string> | undefined;
  if (request.authorization) {
    const grant = request.authorization.grant;
    annotations = {
      [DECISION_ANNOTATION]: 'allow',
      [REASON_ANNOTATION]: grant?.reason ?? 'any authenticated caller may use this route',
    };
    if (request.principal?.type === 'admin') annotations[ADMIN_BYPASS_ANNOTATION] = 'true';
  } else if (request.authorizationAsked && status === 403) {
    annotations = { [DECISION_ANNOTATION]: 'forbid', [REASON_ANNOTATION]: failureMessage ?? 'refused' };
  }
  if (request.query.get('dryRun') === 'All') (annotations ??= {})[DRY_RUN_ANNOTATION] = 'true';
  if (request.auditAnnotations) annotations = Object.assign(annotations ?? {}, request.auditAnnotations);
  if (extraAnnotations) annotations = Object.assign(annotations ?? {}, extraAnnotations);
  return annotations !== undefined && Object.keys(annotations).length > 0 ? annotations : undefined;
}
