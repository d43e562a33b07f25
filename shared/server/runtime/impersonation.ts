import type { ApiRequest } from '../../base/http/api-request.ts';
import { apiError } from '../../base/http/error-catalogue.ts';
import type { RouteDefinition } from '../../contract/routes/route-table.ts';

// kube-apiserver's impersonation headers (`kubectl --as`, `--as-group`, `--as-uid`); extras are `Impersonate-Extra-<key>`.
const IMPERSONATION = /^impersonate-(user|group|uid|extra-.+)$/i;

/**
 * Refuses a request that asks to act as someone else. The server has no impersonation: it would act
 * with the caller's own rights, so `kubectl --as=bob delete …` deleted as the admin what bob may not
 * delete, and `kubectl auth can-i --as=bob` answered for the caller. 400 naming the header, on every
 * route that authenticates (after authentication and authorization, like any other bad input), but
 * discovery and OpenAPI, which answer every caller alike: kubectl reads them first and, refused there,
 * says only "the server rejected our request", where the refused request itself names the header.
 */
export function refuseImpersonation(request: ApiRequest & { route?: RouteDefinition }): void {
  const { route } = request;
  if (!route || route.auth === 'none' || (route.anyAuthenticatedCaller && route.openQuery)) return;
  // Every authenticated request passes here: no array of the names and no lower-cased copies.
  let header: string | undefined;
  for (const name in request.headers)
    if (IMPERSONATION.test(name)) {
      header = name;
      break;
    }
  if (header === undefined) return;
  const message = `impersonation is not supported: this server acts as the caller itself, so the ${JSON.stringify(header.toLowerCase())} header cannot take effect; send the request with the other identity's own token`;
  throw apiError('BadRequest', message);
}
