import type { AuditLevel } from '../../base/config/audit-settings.ts';

/**
 * An audit event in the Kubernetes audit format (`audit.k8s.io/v1` `Event`), so pipelines written
 * for kube-apiserver's audit log (log shippers, SIEM rules) read ours unchanged. Only the fields the
 * API server fills are declared; names and meanings are kube-apiserver's.
 */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: Exclude<AuditLevel, 'None'>;
  /** One per request, also sent back as the `Audit-Id` response header. */
  auditID: string;
  /** `ResponseComplete` once answered; a watch or stream also gets `ResponseStarted` when it opens. */
  stage: AuditStage;
  /** The path and query, with secret-named parameters and credential-shaped values redacted (redactPathAndQuery). */
  requestURI: string;
  /** The Kubernetes verb (get, list, watch, create, update, patch, delete), or the lower-case method. */
  verb: string;
  /** Who authenticated: `admin`, the OIDC username with its groups, or `system:serviceaccount:…`. */
  user: AuditUser;
  /** For an OIDC user: the ServiceAccount whose permissions allowed the request. */
  impersonatedUser?: AuditUser;
  /** The client as the trusted proxy hops give it, then the peer the server saw. */
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: AuditObjectReference;
  responseStatus?: AuditResponseStatus;
  /** The request body, at the `Request` level only, with sensitive values hidden. */
  requestObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  /** The authorization decision and its reason (`authorization.k8s.io/…`), and the server's own notes. */
  annotations?: Record<string, string>;
}

export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

export interface AuditUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** The object a request acted on; for a run, `uid` is the run's id. */
export interface AuditObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  subresource?: string;
}

export interface AuditResponseStatus {
  metadata: Record<string, never>;
  status?: 'Success' | 'Failure';
  code: number;
  /** The answer's `reason` (the error catalogue's), for a failure. */
  reason?: string;
}

/** Annotation keys kube-apiserver writes for the authorization decision. */
export const DECISION_ANNOTATION = 'authorization.k8s.io/decision';
export const REASON_ANNOTATION = 'authorization.k8s.io/reason';
