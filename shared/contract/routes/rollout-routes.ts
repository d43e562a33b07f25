import { DNS_SUBDOMAIN } from '../kinds/object-names.ts';
import { declareRoutes } from './route-definition.ts';
import { OVERRIDE } from './run-routes.ts';

/** The Rollout routes of the platform's own API (served by the resources function): approving a stage (issue 37). */
export function rolloutRoutes() {
  return declareRoutes([
    {
      method: 'POST',
      path: '/api/v1alpha1/projects/{project}/rollouts/{rollout}/approve',
      target: 'resources',
      auth: 'bearer',
      operationId: 'approveRollout',
      // Approving is the server's patch of the Rollout that sets the stage's `approved`, and nothing else.
      authorisation: {
        attributes: {
          verb: 'approve',
          group: 'platform',
          resource: 'rollouts',
          namespaceParameter: 'project',
          nameParameter: 'rollout',
        },
        performs: ['patch'],
      },
      pathParameters: { rollout: DNS_SUBDOMAIN },
      summary:
        'Approve one stage of a Rollout for its current revision (issue 37): sets the stage\'s `spec.stages[].approved`, as a patch that grants the approval would, and records who approved and when in `status.stages[].approval`. Body `{"stage": "<the stage\'s workspace>"}`. Under four eyes (`approval.distinctFromAuthor`) the approver may not be the principal who last changed `spec.revision` (`status.revisionAuthor`), the admin included. Authorised as `approve` on `rollouts` (name: the Rollout); no `patch` needed. The Project\'s approval windows, freeze and the stage\'s soak time must allow it (issue 45), unless `override` is given by a caller with the `override` verb on the Rollout.',
      requestSchema: {
        type: 'object',
        required: ['stage'],
        additionalProperties: false,
        properties: {
          stage: {
            type: 'string',
            minLength: 1,
            maxLength: 253,
            description: "The stage to approve, by its workspace (a Rollout's stages are keyed by workspace).",
          },
          override: OVERRIDE,
        },
      },
      responseSchema: { $ref: '#/components/schemas/Rollout' },
      errorResponses: {
        400: 'Malformed body, or an override without a reason.',
        403: 'An override without the `override` verb on the Rollout (`Forbidden`).',
        404: 'No such Rollout in the Project (`RolloutNotFound`), or no stage for that workspace (`StageNotFound`).',
        409: "The stage needs no approval (`ApprovalNotRequired`) or has it (`AlreadyApproved`); four eyes: the caller authored the revision (`ApproverIsAuthor`) or no author is recorded for it (`RevisionAuthorUnknown`); the Project's windows refuse it now (`OutsideApprovalWindow`, naming the window and when it opens), the Project is frozen (`ProjectFrozen`), or the stage before has not soaked (`SoakTimeNotElapsed`); or the Rollout kept changing (`Conflict`).",
        503: 'The Kubernetes API (or the token verifier) is unavailable; retry after `Retry-After`.',
      },
    },
  ]);
}
