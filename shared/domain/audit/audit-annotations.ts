import type { Principal } from '../../auth/principal.ts';

/**
 * The audit event's annotations of the server's own (kube-apiserver's are `authorization.k8s.io/*`):
 * what only the chain or a handler knows about a request, never a secret.
 */
export const ADMIN_BYPASS_ANNOTATION = 'platform-api/admin-bypass';
/** `true` on a write that changed nothing because the client asked for a dry run (query or body). */
export const DRY_RUN_ANNOTATION = 'platform-api/dry-run';
/** How a watch or stream ended: `completed`, `closed` (the client left) or `failed`. */
export const STREAM_END_ANNOTATION = 'platform-api/stream-end';
/**
 * A login attempt's outcome: `success`, `wrong-password`, `unusable-hash` ($2y$ or empty), `disabled`,
 * `throttled` (the client's failed-login budget is spent), `account-throttled` (the account's is),
 * `busy` (too many in progress), `malformed` (no or a malformed Authorization header).
 */
export const LOGIN_OUTCOME_ANNOTATION = 'platform-api/login-outcome';
/**
 * The admin account's failed-login budget after a counted or refused attempt: `<failures>/<budget>`
 * of its current window (issue 36), e.g. `20/20` once every client is refused.
 */
export const LOGIN_ACCOUNT_FAILURES_ANNOTATION = 'platform-api/login-account-failures';
/** Where the attempt was counted: `database` (every instance) or `process` (no database, or it did not answer). */
export const LOGIN_FAILURE_STORE_ANNOTATION = 'platform-api/login-failure-store';

/** The run a request created (a run started) or was given (a controller's claim): its `objectRef.uid`, found by `?run=`. */
export const RUN_ANNOTATION = 'platform-api/run';

/**
 * On a claim that first collected lapsed leases: each run whose lease lapsed and what became of it
 * (`<run id>=Pending|Failed|Cancelled`, comma-separated), so a lapse is in the trail with the claim
 * that saw it, and found by `?run=` through the run's own events.
 */
export const LAPSED_LEASES_ANNOTATION = 'platform-api/lapsed-leases';

/**
 * An approval (issue 37): the principal who approved (the event's user, named here beside the other) and
 * the principal whose work was approved, the revision's author (`status.revisionAuthor`) or the plan run's
 * principal; empty when no author is recorded.
 */
export const APPROVER_ANNOTATION = 'platform-api/approver';
export const AUTHOR_ANNOTATION = 'platform-api/author';
/** The plan run an apply run was approved from (`platform-api/run` is the new apply run). */
export const PLAN_RUN_ANNOTATION = 'platform-api/plan-run';
/** A Rollout write's approvals: the stages (workspaces) it approved, for which revision, and those it withdrew. */
export const APPROVED_STAGES_ANNOTATION = 'platform-api/approved-stages';
export const APPROVED_REVISION_ANNOTATION = 'platform-api/approved-revision';
export const WITHDRAWN_APPROVALS_ANNOTATION = 'platform-api/withdrawn-approvals';
/**
 * The approvers whose approvals a write or the withdraw route withdrew (issue 45 item 2), comma-separated: with the
 * event's user (who withdrew them) and `platform-api/author`, both principals of a withdrawal.
 */
export const WITHDRAWN_APPROVERS_ANNOTATION = 'platform-api/withdrawn-approvers';

/**
 * An override of the Project's approval windows, freeze or soak time (issue 45 item 3): the caller's reason, and
 * what it overrode (`OutsideApprovalWindow`, `ProjectFrozen` or `SoakTimeNotElapsed`, with the refusal's message).
 */
export const OVERRIDE_REASON_ANNOTATION = 'platform-api/override-reason';
export const OVERRIDDEN_ANNOTATION = 'platform-api/overridden';
/** `changed` on a write of a Project that changes (or tries to change) its `spec.approvalPolicy` (issue 45). */
export const APPROVAL_POLICY_ANNOTATION = 'platform-api/approval-policy';

/** Adds a note to the audit event of the request a handler is answering. */
export function noteForAudit(request: { auditAnnotations?: Record<string, string> }, key: string, value: string): void {
  request.auditAnnotations ??= {};
  request.auditAnnotations[key] = value;
}

/** What a handler tells its request's audit event that only it knows, besides annotations. */
export interface HandlerAuditNotes {
  /** What a create named in its body, or the cluster named for it (`generateName`): `objectRef`'s name and namespace. */
  auditObject?: { name?: string; namespace?: string };
  /** The principal an open route established (a successful login): the event's `user`. */
  establishedPrincipal?: Principal;
}

/**
 * Names the object a create acted on, for its audit event's `objectRef` (kube-apiserver fills it from
 * the request object): what the body named, then what the cluster named for it (`generateName`).
 * A name or namespace already given stays: the one authorized from the path, or the body's.
 */
export function nameForAudit(
  request: HandlerAuditNotes,
  metadata: { name?: unknown; namespace?: unknown } | undefined,
): void {
  const object = (request.auditObject ??= {});
  if (object.name === undefined && typeof metadata?.name === 'string' && metadata.name !== '')
    object.name = metadata.name;
  if (object.namespace === undefined && typeof metadata?.namespace === 'string' && metadata.namespace !== '')
    object.namespace = metadata.namespace;
}
