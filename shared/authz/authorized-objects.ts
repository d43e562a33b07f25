import type { KubernetesCall } from '../base/kubernetes/kubernetes-rest-client.ts';
import type { ClusterObjects, ObjectLocation } from '../domain/resources/cluster-objects.ts';
import type { PlatformKind } from '../contract/kinds/platform-kinds.ts';
import type { AuthorizationDecision } from './authorization-decision.ts';
import { describeAttributes, type ResourceAttributes } from './authorizer.ts';

/**
 * The cluster as one authorized request may use it (as Kargo's authorizing client): every call is
 * turned back into the attributes a SubjectAccessReview would name (verb from the method, group,
 * resource, subresource, namespace and name from the path) and sent only when the request's decision
 * allowed exactly those. Anything else is a bug of the handler: it throws (a 500), and nothing is sent.
 * A `get` of an object the request may `patch` is allowed: patching reads the object it changes.
 */
export class AuthorizedObjects {
  readonly #objects: ClusterObjects;
  readonly #decision: AuthorizationDecision;
  readonly #deadline: AbortSignal | undefined;

  /**
   * `deadline`: the request's (`?timeout=`). What is sent here carries it (abandoned in flight when it
   * passes), and nothing is checked or sent after it, a kind's write included (`authorizedWrites` checks
   * each with `requireCall` first); a write already sent goes on to its end, its follow-ups with it.
   */
  constructor(objects: ClusterObjects, decision: AuthorizationDecision, deadline?: AbortSignal) {
    this.#objects = objects;
    this.#decision = decision;
    this.#deadline = deadline;
  }

  get apiGroup(): string {
    return this.#objects.apiGroup;
  }

  platformPath(kind: PlatformKind, location?: ObjectLocation): string {
    return this.#objects.platformPath(kind, location);
  }

  corePath(resource: string, location?: ObjectLocation): string {
    return this.#objects.corePath(resource, location);
  }

  /** Throws unless the decision allows exactly these attributes. */
  require(attributes: ResourceAttributes): void {
    const allowed =
      this.#decision.allows(attributes) ||
      (attributes.verb === 'get' &&
        attributes.name !== undefined &&
        this.#decision.allows({ ...attributes, verb: 'patch' }));
    if (!allowed) {
      const granted = this.#decision.granted.map(describeAttributes).join(', ') || 'nothing';
      throw new Error(
        `a handler tried to ${describeAttributes(attributes)}, but the request was authorized for ${granted}`,
      );
    }
  }

  /** Throws unless the decision allows the call, and the request's deadline has not passed; answers the call's attributes. */
  requireCall(call: Pick<KubernetesCall, 'method' | 'path' | 'query'>): ResourceAttributes {
    this.#deadline?.throwIfAborted();
    const attributes = callAttributes(call);
    this.require(attributes);
    return attributes;
  }

  send<T = unknown>(call: KubernetesCall): Promise<{ status: number; body: T; warnings?: string[] }> {
    this.requireCall(call);
    return this.#objects.send<T>(this.#deadline ? { ...call, signal: this.#deadline } : call);
  }

  find<T = unknown>(path: string): Promise<T | undefined> {
    this.requireCall({ method: 'GET', path });
    return this.#objects.find<T>(path, this.#deadline);
  }

  watch(path: string, query: URLSearchParams, signal: AbortSignal): Promise<AsyncIterable<string>> {
    this.require({ ...callAttributes({ method: 'GET', path }), verb: 'watch' });
    return this.#objects.watch(path, query, signal);
  }
}

const VERBS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch' };

/**
 * The attributes of a call to `/apis/<group>/<version>/…` or `/api/v1/…` (kube-apiserver's
 * RequestInfo): `[namespaces/<ns>/]<resource>[/<name>[/<subresource>]]`.
 */
export function callAttributes(call: Pick<KubernetesCall, 'method' | 'path' | 'query'>): ResourceAttributes {
  const segments = call.path.split('/').slice(1).map(decodeURIComponent);
  const core = segments[0] === 'api';
  const group = core ? '' : segments[1]!;
  let rest = segments.slice(core ? 2 : 3);
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, subresource] = rest;
  const watching = call.query?.get('watch') === 'true' || call.query?.get('watch') === '1';
  const verb =
    call.method === 'GET'
      ? name !== undefined
        ? 'get'
        : watching
          ? 'watch'
          : 'list'
      : call.method === 'DELETE'
        ? name !== undefined
          ? 'delete'
          : 'deletecollection'
        : (VERBS[call.method] ?? call.method.toLowerCase());
  return {
    verb,
    group,
    resource: resource!,
    ...(subresource !== undefined ? { subresource } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
  };
}
