import { AuthorisedObjects } from '../../../shared/authz/authorised-objects.ts';
import { jsonResponse } from '../../../shared/base/http/api-request.ts';
import type { ClusterObjects } from '../../../shared/domain/resources/cluster-objects.ts';
import { ROLLOUT } from '../../../shared/contract/kinds/platform-kinds.ts';
import type { DeclaredRoute } from '../../../shared/contract/routes/route-table.ts';
import type { RouteHandlers, RouteRequest } from '../../../shared/server/runtime/typed-handlers.ts';
import { rolloutWrites } from '../kinds/rollout-writes.ts';

type ApproveRoute = Extract<DeclaredRoute, { operationId: 'approveRollout' }>;

/**
 * `POST /api/v1alpha1/projects/{project}/rollouts/{rollout}/approve` (issue 37): the chain authorised
 * `approve` on the Rollout, which stands for the server's patch of it; the approval is then judged and
 * written as any Rollout write that grants one (rollout-writes.ts), four eyes included.
 */
export function rolloutHandlers(objects: ClusterObjects) {
  return {
    async approveRollout(request: RouteRequest<ApproveRoute>) {
      const { namespace, name } = request.authorisation.resource;
      const location = { namespace, name };
      const cluster = new AuthorisedObjects(objects, request.authorisation);
      cluster.requireCall({ method: 'PATCH', path: cluster.platformPath(ROLLOUT, location) });
      const { stage, override } = request.input.body();
      const { body } = await rolloutWrites(objects, request).approveStage(location, stage, override);
      return jsonResponse(200, body);
    },
  } satisfies Partial<RouteHandlers<'resources'>>;
}
