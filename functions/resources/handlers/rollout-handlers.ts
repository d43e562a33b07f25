import { AuthorizedObjects } from '../../../shared/authz/authorized-objects.ts';
import { jsonResponse } from '../../../shared/base/http/api-request.ts';
import type { ClusterObjects } from '../../../shared/domain/resources/cluster-objects.ts';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import { ROLLOUT } from '../../../shared/contract/kinds/platform-kinds.ts';
import type { DeclaredRoute } from '../../../shared/contract/routes/route-table.ts';
import type { RouteHandlers, RouteRequest } from '../../../shared/server/runtime/typed-handlers.ts';
import { rolloutWrites } from '../kinds/rollout-writes.ts';

type RolloutRoute<Id extends string> = Extract<DeclaredRoute, { operationId: Id }>;

/**
 * `POST /api/v1alpha1/projects/{project}/rollouts/{rollout}/approve` (issue 37) and `.../withdraw` (issue 45):
 * the chain authorized `approve` on the Rollout, which stands for the server's patch of its status; the approval
 * (or its withdrawal) is judged by the approval judge and recorded in that one write (rollout-writes.ts); `written`
 * then records the stage events the write made (issue 47), before the answer.
 */
export function rolloutHandlers(
  objects: ClusterObjects,
  written: (rollout: PlatformObject, stage: string) => Promise<void>,
) {
  /** The Rollout the decision names; its status patch checked against the decision before anything is read. */
  const authorizedRollout = (request: RouteRequest<RolloutRoute<'approveRollout' | 'withdrawRolloutApproval'>>) => {
    const { namespace, name } = request.authorization.resource;
    const location = { namespace, name };
    const cluster = new AuthorizedObjects(objects, request.authorization);
    cluster.requireCall({
      method: 'PATCH',
      path: cluster.platformPath(ROLLOUT, { ...location, subresource: 'status' }),
    });
    return location;
  };
  return {
    async approveRollout(request: RouteRequest<RolloutRoute<'approveRollout'>>) {
      const location = authorizedRollout(request);
      const { stage, override } = request.input.body();
      const { body } = await rolloutWrites(objects, request).approveStage(location, stage, override);
      await written(body, stage);
      return jsonResponse(200, body);
    },
    async withdrawRolloutApproval(request: RouteRequest<RolloutRoute<'withdrawRolloutApproval'>>) {
      const location = authorizedRollout(request);
      const { stage, approver } = request.input.body();
      const { body } = await rolloutWrites(objects, request).withdrawApproval(location, stage, approver);
      await written(body, stage);
      return jsonResponse(200, body);
    },
  } satisfies Partial<RouteHandlers<'resources'>>;
}
