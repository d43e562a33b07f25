import type { RouteDefinition } from './route-definition.ts';

/**
 * Query parameters the chain reads on every route, which no route declares and none refuses:
 * kube-apiserver's `timeout`, the request's deadline, which client-go sends on every request
 * (`kubectl --request-timeout`; shared/server/runtime/filters/request-deadline.ts).
 */
export const CHAIN_QUERY_PARAMETERS: readonly string[] = ['timeout'];

/** Whether the chain reads `timeout` on the route: every route but the identity bridge's (another server's). */
export function readsTimeout(route: RouteDefinition): boolean {
  return route.target !== 'bridge';
}

const NO_QUERY: readonly string[] = [];
// The run-log stream's token may come in the query (browsers' EventSource sets no header); nothing else may.
const TOKEN_QUERY: readonly string[] = ['access_token'];

/**
 * The query parameters a route accepts when it declares no query schema (checked by name, without
 * the schema checker, which routes such as whoami never load), besides the chain's own, accepted
 * everywhere (CHAIN_QUERY_PARAMETERS): on an authenticated platform route, nothing (the
 * token of the run-log stream apart). A parameter a route does not read is a 400 naming it, never
 * ignored: `?dryRun=All` on a run's start recorded a real run, and the audit event called it a dry
 * run. Kubernetes-style routes (`statusErrors`, `openQuery`: resources, discovery, OpenAPI) stay
 * open, as kube-apiserver's are (kubectl sends `?hash=` and options such as `timeout`); so do open
 * routes, the bridge (another server's routes) and a catch-all that only refuses.
 */
export function undeclaredQueryParameters(route: RouteDefinition): readonly string[] | undefined {
  if (route.querySchema || !readsOnlyWhatItDeclares(route)) return undefined;
  return route.auth === 'bearer-or-query' ? TOKEN_QUERY : NO_QUERY;
}

/**
 * Whether the route refuses a `namespace` query parameter even where its query is open (issue 44,
 * item 11): a route whose path names the namespace (`{namespace}`, or `{project}`, a Project's
 * namespace) takes it from the path only, so `?namespace=` would name a second one, which no handler
 * may read (the authorizing client refuses a call elsewhere than the path's namespace: a 500). A 400
 * naming it instead, as a closed query answers, unless the route declares it (the audit list's filter).
 */
export function refusesNamespaceQuery(route: RouteDefinition): boolean {
  const declared = (route.querySchema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return /\{(namespace|project)\}/.test(route.path) && !(declared && Object.hasOwn(declared, 'namespace'));
}

/**
 * Whether a body on this route is refused because the route declares none: a run's cancel ("no body")
 * answered 200 to `{"dryRun": true}` and cancelled the run. The same routes as a closed query.
 */
export function takesNoBody(route: RouteDefinition): boolean {
  return !route.requestSchema && readsOnlyWhatItDeclares(route);
}

function readsOnlyWhatItDeclares(route: RouteDefinition): boolean {
  const open = route.statusErrors || route.openQuery || route.answersOnlyErrors;
  return !open && route.auth !== 'none' && route.target !== 'bridge';
}
