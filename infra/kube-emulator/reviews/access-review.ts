// authorization.k8s.io/v1 SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectAccessReview, answered by
// the same authorizer chain that guards the emulator's own API.
import { authorize } from '../rbac/authorizer-chain.ts';
import type { EmulatorContext } from '../emulator-context.ts';
import { parseJson } from '../http/http-messages.ts';
import type { JsonReply } from '../http/http-messages.ts';
import type { RequestInfo } from '../http/request-info.ts';
import { invalid } from '../http/status.ts';
import type { FieldError } from '../http/status.ts';
import type { UserInfo } from './user-info.ts';

interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

interface AccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: { path?: string; verb?: string };
  user?: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

interface AccessReviewBody {
  metadata?: Record<string, unknown>;
  spec?: AccessReviewSpec;
}

const KINDS: Record<string, string> = {
  subjectaccessreviews: 'SubjectAccessReview',
  localsubjectaccessreviews: 'LocalSubjectAccessReview',
  selfsubjectaccessreviews: 'SelfSubjectAccessReview',
};

function validate(resource: string, spec: AccessReviewSpec, namespace: string): FieldError[] {
  const errors: FieldError[] = [];
  if (spec.resourceAttributes && spec.nonResourceAttributes) {
    errors.push({
      field: 'spec.nonResourceAttributes',
      type: 'FieldValueInvalid',
      value: spec.nonResourceAttributes,
      detail: 'cannot be specified in combination with resourceAttributes',
    });
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    errors.push({
      field: 'spec.resourceAttributes',
      type: 'FieldValueInvalid',
      value: 'null',
      detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified',
    });
  }
  if (resource !== 'selfsubjectaccessreviews' && !spec.user && (spec.groups ?? []).length === 0) {
    errors.push({
      field: 'spec.user',
      type: 'FieldValueInvalid',
      value: '',
      detail: 'at least one of user or group must be specified',
    });
  }
  if (resource === 'localsubjectaccessreviews') {
    if (spec.nonResourceAttributes) {
      errors.push({
        field: 'spec.nonResourceAttributes',
        type: 'FieldValueInvalid',
        value: spec.nonResourceAttributes,
        detail: 'disallowed on this kind of request',
      });
    }
    if (spec.resourceAttributes && spec.resourceAttributes.namespace !== namespace) {
      errors.push({
        field: 'spec.resourceAttributes.namespace',
        type: 'FieldValueInvalid',
        value: spec.resourceAttributes.namespace ?? '',
        detail: 'must match metadata.namespace',
      });
    }
  }
  return errors;
}

/** Answers an access review of the kind `info.resource`; the self review asks about `caller`. */
export function handleAccessReview(
  context: EmulatorContext,
  info: RequestInfo,
  body: string,
  caller: UserInfo,
): JsonReply {
  context.counters.subjectAccessReviews++;
  const review = (parseJson(body) ?? {}) as AccessReviewBody;
  const spec = review.spec ?? {};
  const kind = KINDS[info.resource]!;
  const errors = validate(info.resource, spec, info.namespace);
  if (errors.length > 0) throw invalid({ group: 'authorization.k8s.io', kind }, '', errors);
  const user: UserInfo =
    info.resource === 'selfsubjectaccessreviews'
      ? caller
      : {
          username: spec.user ?? '',
          groups: spec.groups ?? [],
          ...(spec.uid ? { uid: spec.uid } : {}),
          ...(spec.extra ? { extra: spec.extra } : {}),
        };
  const resource = spec.resourceAttributes;
  const decision = authorize(context.authorizer, {
    user,
    isResourceRequest: resource !== undefined,
    verb: resource?.verb ?? spec.nonResourceAttributes?.verb ?? '',
    group: resource?.group ?? '',
    resource: resource?.resource ?? '',
    subresource: resource?.subresource ?? '',
    namespace: resource?.namespace ?? '',
    name: resource?.name ?? '',
    path: spec.nonResourceAttributes?.path ?? '',
  });
  return {
    status: 201,
    body: {
      kind,
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { ...review.metadata, creationTimestamp: null },
      spec,
      // `denied` is only ever false for RBAC, and false is omitted on the wire, as is an empty reason.
      status: { allowed: decision.allowed, ...(decision.reason ? { reason: decision.reason } : {}) },
    },
  };
}
