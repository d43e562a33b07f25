import { DNS_SUBDOMAIN } from '../kinds/object-names.ts';
import { declareRoutes } from './route-definition.ts';
import { OVERRIDE } from './run-routes.ts';

/** What approving and withdrawing are authorized as: `approve` on the Rollout, standing for the patch of its status. */
const APPROVE_ON_ROLLOUT = {
  attributes: {
    verb: 'approve',
    group: 'platform',
    resource: 'rollouts',
    namespaceParameter: 'project',
    nameParameter: 'rollout',
  },
  // Approving and withdrawing are the server's read of the Rollout and one write of its status, and nothing else.
  performs: ['get', { verb: 'patch', subresource: 'status' }],
} as const;

const STAGE = {
  type: 'string',
  minLength: 1,
  maxLength: 253,
  description: "The stage, by its workspace (a Rollout's stages are keyed by workspace).",
} as const;

/**
 * The Rollout routes of the platform's own API (served by the resources function): approving a stage (issue 37)
 * and withdrawing an approval (issue 45 item 2), each one write of the Rollout's status (issue 43 item 7).
 */
export function rolloutRoutes() {
  return declareRoutes([
    {
      method: 'POST',
      path: '/api/v1alpha1/projects/{project}/rollouts/{rollout}/approve',
      target: 'resources',
      auth: 'bearer',
      operationId: 'approveRollout',
      authorization: APPROVE_ON_ROLLOUT,
      pathParameters: { rollout: DNS_SUBDOMAIN },
      summary:
        'Approve one stage of a Rollout for its current revision (issue 37, issue 45 item 2): records the caller\'s approval (who, when, which revision, its groups) in `status.stages[].approvals` in one write of the status, which opens the gate (`status.stages[].approval`, shown as `spec.stages[].approved`) in the same write when the approvals meet the stage\'s requirement: `count` distinct approvers, one from each required group, none the author under four eyes (docs/resources.md "Approvals"). Body `{"stage": "<the stage\'s workspace>"}`. Under four eyes (`approval.distinctFromAuthor`) the approver may not be the principal who last changed `spec.revision` (`status.revisionAuthor`), the admin included. Authorized as `approve` on `rollouts` (name: the Rollout); no `patch` needed. The Project\'s approval windows, freeze and the stage\'s soak time must allow it (issue 45), unless `override` is given by a caller with the `override` verb on the Rollout.',
      requestSchema: {
        type: 'object',
        required: ['stage'],
        additionalProperties: false,
        properties: {
          stage: STAGE,
          override: OVERRIDE,
        },
      },
      responseSchema: { $ref: '#/components/schemas/Rollout' },
      errorResponses: {
        400: 'Malformed body, or an override without a reason.',
        403: 'An override without the `override` verb on the Rollout (`Forbidden`).',
        404: 'No such Rollout in the Project (`RolloutNotFound`), or no stage for that workspace (`StageNotFound`).',
        409: "The stage needs no approval (`ApprovalNotRequired`), has it, or the caller has already approved it (`AlreadyApproved`); four eyes: the caller authored the revision (`ApproverIsAuthor`) or no author is recorded for it (`RevisionAuthorUnknown`); the Project's windows refuse it now (`OutsideApprovalWindow`, naming the window and when it opens), the Project is frozen (`ProjectFrozen`), or the stage before has not soaked (`SoakTimeNotElapsed`); or the Rollout kept changing (`Conflict`).",
        503: 'The Kubernetes API (or the token verifier) is unavailable; retry after `Retry-After`.',
      },
    },
    {
      method: 'POST',
      path: '/api/v1alpha1/projects/{project}/rollouts/{rollout}/withdraw',
      target: 'resources',
      auth: 'bearer',
      operationId: 'withdrawRolloutApproval',
      authorization: APPROVE_ON_ROLLOUT,
      pathParameters: { rollout: DNS_SUBDOMAIN },
      summary:
        'Withdraw an approval of one stage of a Rollout for its current revision (issue 45 item 2): removes `approver`\'s record (the caller\'s own when not given) from `status.stages[].approvals` in one write of the status, and closes the gate in the same write when the approvals left no longer meet the stage\'s requirement. The audit event names the caller and the approver whose approval was withdrawn. Body `{"stage", "approver"}`. Authorized as `approve` on `rollouts` (name: the Rollout).',
      requestSchema: {
        type: 'object',
        required: ['stage'],
        additionalProperties: false,
        properties: {
          stage: STAGE,
          approver: {
            type: 'string',
            minLength: 1,
            maxLength: 512,
            description:
              "Whose approval to withdraw, as its record names it (`approvedBy`); the caller's own when not given.",
          },
        },
      },
      responseSchema: { $ref: '#/components/schemas/Rollout' },
      errorResponses: {
        400: 'Malformed body.',
        404: 'No such Rollout in the Project (`RolloutNotFound`), no stage for that workspace (`StageNotFound`), or no approval of it by that approver for the current revision (`ApprovalNotFound`).',
        409: 'The Rollout kept changing (`Conflict`).',
        503: 'The Kubernetes API (or the token verifier) is unavailable; retry after `Retry-After`.',
      },
    },
  ]);
}
