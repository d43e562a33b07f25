import {
  PLATFORM_KINDS,
  RESOURCE_OPERATIONS,
  type PlatformKind,
  type ResourceOperation,
} from '../kinds/platform-kinds.ts';

/**
 * What a route is authorized as, declared in the route table and decided by the chain's
 * authorization filter (shared/server/runtime/filters/authorization.ts) before any handler runs, as
 * kube-apiserver's `WithAuthorization` does. Namespace and name come from the route's validated
 * path parameters, never from what the handler later reads.
 */
export interface DeclaredAttributes {
  verb: string;
  /**
   * `platform`: the platform's API group (configured); `core`: Kubernetes' core group (`''`);
   * `audit.k8s.io`: the audit trail's events (docs/audit.md, "Who may read it").
   */
  group: 'platform' | 'core' | 'audit.k8s.io';
  resource: string;
  subresource?: string;
  /** The path parameter that names the namespace. */
  namespaceParameter?: string;
  /** The path parameter that names the object. */
  nameParameter?: string;
}

/** Resolvers of routes that must read before they can say what they act on (the function supplies them). */
export const AUTHORIZATION_RESOLVERS = ['runWorkspace'] as const;
export type AuthorizationResolverName = (typeof AUTHORIZATION_RESOLVERS)[number];

/**
 * A route's own declaration, for routes that are not a platform kind's (those are derived from
 * `resource`): fixed attributes; attributes whose name a resolver finds (`runWorkspace`: the run's
 * Workspace; an unknown run is authorized without a name, then 404); or the request's own path
 * as a non-resource URL (`/internal/*`).
 */
export type RouteAuthorization =
  | {
      attributes: DeclaredAttributes;
      /**
       * Verbs the route's verb stands for on the same object, granted with it for the calls the handler
       * makes: approving a Rollout (`approve`) is the server's `patch` of its status.
       */
      performs?: readonly (string | { verb: string; subresource: string })[];
    }
  | { resolver: AuthorizationResolverName; attributes: Omit<DeclaredAttributes, 'nameParameter'> }
  | { nonResourcePath: true }
  /** The caller's run task token must be the one of the task result the path names (`{taskResult}`). */
  | { boundTaskResult: true };

/** What a route declares about its authorization: the fields of its definition (route-definition.ts) read here. */
export interface AuthorizationDeclaration {
  operationId: string;
  auth: string;
  resource?: { kind: string; operation: ResourceOperation };
  authorization?: RouteAuthorization;
  anyAuthenticatedCaller?: boolean;
}

/** How the chain authorizes a route, whichever way the route declared it. */
export type EffectiveAuthorization =
  | { open: true }
  | { anyAuthenticatedCaller: true }
  | { kind: PlatformKind; operation: ResourceOperation }
  | RouteAuthorization;

/**
 * The route's authorization: open routes need none; every other route declares exactly one of
 * `resource`, `authorization` or `anyAuthenticatedCaller`. Throws for a route that declares none or
 * several, so a table with such a route cannot be built.
 */
export function effectiveAuthorization(route: AuthorizationDeclaration): EffectiveAuthorization {
  if (route.auth === 'none') return { open: true };
  if ((route.auth === 'task-result-token') !== 'boundTaskResult' in (route.authorization ?? {}))
    throw new Error(
      `route ${route.operationId}: a task-result-token route, and only one, is authorized as boundTaskResult`,
    );
  const declared = [route.resource, route.authorization, route.anyAuthenticatedCaller || undefined].filter(
    (declaration) => declaration !== undefined,
  );
  if (declared.length !== 1) {
    throw new Error(
      `route ${route.operationId}: declare exactly one of resource, authorization or anyAuthenticatedCaller (found ${declared.length})`,
    );
  }
  if (route.anyAuthenticatedCaller) return { anyAuthenticatedCaller: true };
  if (route.authorization) return route.authorization;
  const { kind: kindName, operation } = route.resource!;
  const kind = PLATFORM_KINDS.find((candidate) => candidate.kind === kindName);
  if (!kind) throw new Error(`route ${route.operationId}: no platform kind ${kindName}`);
  return { kind, operation };
}

const WRITES_OF_THE_OBJECT: readonly ResourceOperation[] = ['create', 'replace', 'patch'];

/**
 * The verbs the chain decides besides the operation's own, without refusing the request: what a write of
 * the kind's object may need depending on its result (a Rollout's `approve`); none for other operations.
 */
export function verbsDecidedWith(kind: PlatformKind, operation: ResourceOperation): readonly string[] {
  return WRITES_OF_THE_OBJECT.includes(operation) ? (kind.writesMayNeed ?? []) : [];
}

/**
 * `?watch` on a list makes it a watch, authorized as `watch`, with any value but `0` and `false` (in any
 * case), as kube-apiserver reads a boolean option: `?watch=True` or `?watch=yes` was answered with a list.
 */
export function isWatchRequest(query: URLSearchParams): boolean {
  const watch = query.get('watch');
  return watch !== null && watch !== '0' && watch.toLowerCase() !== 'false';
}

/**
 * The verb of an operation on a platform kind: RESOURCE_OPERATIONS', except a list with `?watch`
 * (`watch`). Server-side apply is a PATCH, so it is `patch` like any patch; its `create`, when the
 * object does not exist yet, is decided by the handler through the same authorization.
 */
export function resourceVerb(operation: ResourceOperation, query: URLSearchParams): string {
  return operation === 'list' && isWatchRequest(query) ? 'watch' : RESOURCE_OPERATIONS[operation];
}
