import type { Principal } from '../auth/principal.ts';
import { ApiError } from '../base/http/api-error.ts';
import {
  isNonResource,
  type AuthorizationAttributes,
  type AuthorizationGrant,
  type Authorizer,
  type ResourceAttributes,
} from './authorizer.ts';

/**
 * What a resolver read to name the route's object: the name (absent: authorize without one), what it
 * found (handed to the handler as the decision's `resolved`), or the error to answer once the caller
 * was authorized without a name (only those who could act on any such object learn it does not exist).
 * `readableAs`: the verb and resource that let a caller read what was found (a run: `get` on
 * `workspaces/runs`); a refused caller without it is answered as for an object that does not exist.
 */
export type ResolvedObject =
  | { name: string; resolved: unknown; readableAs: { verb: string; resource: string; subresource?: string } }
  | { notFound: unknown };

/** Reads what a route acts on before it is authorized (a run by id), from the validated path parameters. */
export type AuthorizationResolver = (request: {
  principal: Principal;
  params: Record<string, string>;
  /** The request's deadline (`?timeout=`), which what the resolver reads carries. */
  deadline?: AbortSignal;
}) => Promise<ResolvedObject>;

/** A verb a route's verb stands for on the same object, or on one of its subresources (`patch` of `status`). */
export type PerformedVerb = string | { verb: string; subresource: string };

/**
 * Verbs decided with a route's own on the same object. `performs`: verbs the route's verb stands for
 * (approving is the server's `patch` of the object's status), granted with it. `decidesAlso`: verbs some results of
 * the request need besides its own (a Rollout write that grants an approval needs `approve`), decided with
 * it without refusing the request; the handler learns the answer from `requireVerb`, never from the cluster.
 */
export interface DecidedVerbs {
  performs?: readonly PerformedVerb[];
  decidesAlso?: readonly string[];
}

/**
 * What the chain authorized for one request (shared/server/runtime/filters/authorization.ts), handed to its
 * handler: the attributes the caller was allowed, and what a resolver read to decide them (a run).
 * Cluster access is bound to it (authorized-objects.ts), so a handler can do only what was allowed.
 */
export class AuthorizationDecision {
  readonly #authorizer: Authorizer;
  readonly #granted: AuthorizationAttributes[];
  /** Verbs the chain decided besides the route's own and refused, each with its refusal (`requireVerb`). */
  readonly #refusedVerbs = new Map<string, ApiError>();
  readonly principal: Principal;
  /** What the route's resolver read to name the attributes (a run found by id); undefined without one. */
  readonly resolved: unknown;
  /** Why the route's attributes were allowed (the audit trail's reason); undefined on a route authorized as any caller. */
  readonly grant: AuthorizationGrant | undefined;

  constructor(
    authorizer: Authorizer,
    principal: Principal,
    granted: AuthorizationAttributes[],
    resolved?: unknown,
    grant?: AuthorizationGrant,
  ) {
    this.#authorizer = authorizer;
    this.principal = principal;
    this.#granted = granted;
    this.resolved = resolved;
    this.grant = grant;
  }

  /**
   * Authorizes `attributes` for the principal and decides on them, and on `verbs` (DecidedVerbs); throws 403
   * (or 503) as the authorizer does for the route's own verb.
   */
  static async decide(
    authorizer: Authorizer,
    principal: Principal,
    attributes: AuthorizationAttributes | undefined,
    resolved?: unknown,
    verbs: DecidedVerbs = {},
  ): Promise<AuthorizationDecision> {
    const grant = attributes ? await authorizer.authorize(principal, attributes) : undefined;
    const decision = new AuthorizationDecision(authorizer, principal, attributes ? [attributes] : [], resolved, grant);
    for (const performed of verbs.performs ?? [])
      decision.#granted.push(
        typeof performed === 'string'
          ? { ...decision.resource, verb: performed }
          : { ...decision.resource, ...performed },
      );
    for (const verb of verbs.decidesAlso ?? []) await decision.#decideAlso(verb);
    return decision;
  }

  /** Every attribute set allowed so far, the route's first. */
  get granted(): readonly AuthorizationAttributes[] {
    return this.#granted;
  }

  /** The route's resource attributes; a bug (throws) on a route authorized otherwise. */
  get resource(): ResourceAttributes {
    const first = this.#granted[0];
    if (!first || isNonResource(first)) throw new Error('the route was not authorized on a resource');
    return first;
  }

  /**
   * Authorizes the route's attributes with another verb too (server-side apply's `create` when the
   * object does not exist), through the same authorizer as the chain, and adds them to the decision.
   */
  async authorizeAlso(verb: string): Promise<void> {
    const attributes = { ...this.resource, verb };
    await this.#authorizer.authorize(this.principal, attributes);
    this.#granted.push(attributes);
  }

  /**
   * Authorizes other attributes than the route's (the right a write's result needs on another resource: a
   * Project's `projects/approvalpolicy`, a Workspace's `workspaces/runs` `approve`), through the same
   * authorizer as the chain, and adds them to the decision; throws its 403 (or 503) otherwise.
   */
  async requireAlso(attributes: ResourceAttributes): Promise<void> {
    if (this.allows(attributes)) return;
    await this.#authorizer.authorize(this.principal, attributes);
    this.#granted.push(attributes);
  }

  /**
   * Throws unless the chain allowed `verb` on the route's object: its refusal (403 naming the verb) when it
   * decided and refused it, a bug (an Error) when the route does not have the chain decide it.
   */
  requireVerb(verb: string): void {
    if (this.allows({ ...this.resource, verb })) return;
    const refusal = this.#refusedVerbs.get(verb);
    if (refusal) throw refusal;
    throw new Error(`a handler needs ${verb}, which the chain does not decide for this route`);
  }

  // A refusal is kept for the handler; a review that could not be made (503) fails the request, closed.
  async #decideAlso(verb: string): Promise<void> {
    const attributes = { ...this.resource, verb };
    try {
      await this.#authorizer.authorize(this.principal, attributes);
      this.#granted.push(attributes);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 403)) throw error;
      this.#refusedVerbs.set(verb, error);
    }
  }

  /** Whether exactly these attributes were allowed (every field equal; absent equals absent). */
  allows(attributes: AuthorizationAttributes): boolean {
    return this.#granted.some((granted) => sameAttributes(granted, attributes));
  }
}

const FIELDS = ['verb', 'group', 'resource', 'subresource', 'namespace', 'name', 'nonResourcePath'] as const;

function sameAttributes(left: AuthorizationAttributes, right: AuthorizationAttributes): boolean {
  const field = (attributes: AuthorizationAttributes, name: (typeof FIELDS)[number]) =>
    (attributes as unknown as Record<string, string | undefined>)[name] || undefined;
  return FIELDS.every((name) => field(left, name) === field(right, name));
}
