import { declareRoutes } from './route-definition.ts';

// The run history routes (served by the resources function) and the run-log stream (the run-logs function).
export const RUN_SCHEMA = {
  type: 'object',
  required: [
    'id',
    'project',
    'workspace',
    'type',
    'phase',
    'principal',
    'principalType',
    'createdAt',
    'startedAt',
    'finishedAt',
    'logRemovedAt',
    'message',
    'statusMessage',
    'attempts',
    'controller',
    'cancelRequestedAt',
    'cancelRequestedBy',
    'planRun',
    'planHasChanges',
  ],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'UUIDv7: time-ordered.' },
    project: { type: 'string' },
    workspace: { type: 'string' },
    type: { enum: ['plan', 'apply'] },
    phase: {
      enum: ['AwaitingTasks', 'Pending', 'Running', 'Succeeded', 'Failed', 'Cancelled'],
      description:
        '`AwaitingTasks`: the run waits for its run tasks (docs/run-tasks.md) before a controller may claim it.',
    },
    principal: {
      type: 'string',
      description: '`admin`, the OIDC username, or `system:serviceaccount:<namespace>:<name>`.',
    },
    principalType: { enum: ['admin', 'oidc', 'serviceaccount'] },
    createdAt: { type: 'string', format: 'date-time' },
    startedAt: { type: ['string', 'null'], format: 'date-time' },
    finishedAt: { type: ['string', 'null'], format: 'date-time' },
    logRemovedAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description:
        "When the run's log was removed after `RUN_LOG_RETENTION` (the run record stays); null while the log is kept.",
    },
    message: { type: 'string', description: "The user's message from the start of the run." },
    statusMessage: { type: 'string', description: 'What the controller (or a lapsed lease) last said about the run.' },
    attempts: { type: 'integer', description: 'How many times a controller claimed the run.' },
    controller: { type: ['string', 'null'], description: 'The ServiceAccount of the controller that claimed it last.' },
    cancelRequestedAt: { type: ['string', 'null'], format: 'date-time' },
    cancelRequestedBy: { type: ['string', 'null'] },
    planRun: {
      type: ['string', 'null'],
      format: 'uuid',
      description:
        'The succeeded plan run whose approval started this apply run (`POST .../runs/{plan}/apply`): the controller applies exactly that plan. Null for every other run.',
    },
    override: {
      type: 'object',
      required: ['by', 'reason', 'overrode'],
      description:
        'Present on an apply run that the Project\'s approval windows or freeze refused and an incident commander let through (issue 45; docs/resources.md "Windows, freezes and overrides"): who overrode (the principal with the `override` verb), the reason given, and the refusal overridden (`ProjectFrozen`, `OutsideApprovalWindow`). Absent on every other run.',
      properties: {
        by: { type: 'string' },
        reason: { type: 'string' },
        overrode: { enum: ['ProjectFrozen', 'OutsideApprovalWindow'] },
      },
    },
    planHasChanges: {
      type: ['boolean', 'null'],
      description:
        'A succeeded plan: true when it proposes changes, false when there is nothing to apply, as the controller reported it (`hasChanges`). Null when it did not say, and for applies.',
    },
  },
};

export const RUN_PAGE_SCHEMA = {
  type: 'object',
  required: ['items'],
  properties: {
    items: { type: 'array', items: RUN_SCHEMA },
    continue: { type: 'string', description: 'Pass as `?continue=` for the next page; absent on the last page.' },
  },
};

/** A run as the run history routes answer it (the controller's routes answer RUN_SCHEMA). */
const GROUPS = { type: 'array', items: { type: 'string' } } as const;
const RUN_ANSWER_SCHEMA = {
  ...RUN_SCHEMA,
  required: [...RUN_SCHEMA.required, 'planApproval'],
  properties: {
    ...RUN_SCHEMA.properties,
    planApproval: {
      type: ['object', 'null'],
      required: ['applyable', 'applyableUntil', 'supersededBy', 'blockedBy', 'approvals', 'requirement', 'stillNeeded'],
      description:
        'For a succeeded plan run, whether it may still be approved for apply (`POST .../runs/{run}/apply`), by the rule that approval applies (issue 44, item 15); null for every other run.',
      properties: {
        applyable: {
          type: 'boolean',
          description:
            'When the answer was made: the plan is not superseded, `applyableUntil` has not passed and nothing blocks it (`blockedBy`). False means approving it is refused with 409 `PlanStale`, or with the reason `blockedBy` names.',
        },
        applyableUntil: {
          type: 'string',
          format: 'date-time',
          description:
            'When it finished plus `PLAN_APPROVAL_MAX_AGE` (24h by default): after that the plan is stale, so a client showing it decides again as time passes.',
        },
        supersededBy: {
          type: ['object', 'null'],
          required: ['id', 'type'],
          description:
            'The newest run of the Workspace recorded after the plan (a newer plan, or the apply of this one), which makes it stale; null while the plan is the newest.',
          properties: { id: { type: 'string', format: 'uuid' }, type: { enum: ['plan', 'apply'] } },
        },
        approvals: {
          type: 'array',
          description:
            "The approvals of the plan for apply so far (issue 45 item 2), oldest first, each approver once: who, when, and its groups when it approved (OIDC groups with their prefix, or the ServiceAccount's). Withdrawn approvals are gone.",
          items: {
            type: 'object',
            required: ['approvedBy', 'approvedAt', 'groups'],
            properties: {
              approvedBy: { type: 'string' },
              approvedAt: { type: 'string', format: 'date-time' },
              groups: GROUPS,
            },
          },
        },
        requirement: {
          type: 'object',
          required: ['count', 'groups', 'distinctFromAuthor'],
          description:
            "What the Project's approval policy asks of the Workspace's applies (`spec.approvalPolicy.applies[].approvals`): `count` distinct approvers, one from each of `groups`, none of them the plan's principal under `distinctFromAuthor`; one approval from anybody where it asks nothing.",
          properties: {
            count: { type: 'integer', minimum: 1 },
            groups: GROUPS,
            distinctFromAuthor: { type: 'boolean' },
          },
        },
        stillNeeded: {
          type: 'object',
          required: ['approvers', 'groups'],
          description:
            "Who still has to approve before the apply run starts, by the stages' rule: how many more distinct approvers, and the required groups none of the approvals so far came from. The approval that meets it starts the apply.",
          properties: { approvers: { type: 'integer', minimum: 0 }, groups: GROUPS },
        },
        blockedBy: {
          type: ['object', 'null'],
          required: ['reason', 'message'],
          description:
            "What else holds the plan back (issue 48): its post_plan run tasks have not all answered (`RunTasksPending`), or a mandatory one failed or timed out and was not overridden (`RunTaskFailed`); the catalogue reason approving it would be refused with, and that refusal's message naming the task. Null when nothing does.",
          properties: { reason: { enum: ['RunTasksPending', 'RunTaskFailed'] }, message: { type: 'string' } },
        },
      },
    },
  },
};

const RUN_ANSWER_PAGE_SCHEMA = {
  ...RUN_PAGE_SCHEMA,
  properties: { ...RUN_PAGE_SCHEMA.properties, items: { type: 'array', items: RUN_ANSWER_SCHEMA } },
};

const RUN_PAGE_QUERY = 'Newest first. Query: `limit` (1..500, default 50) and `continue`.';
export const PAGE_PARAMETERS = {
  limit: {
    type: 'integer',
    minimum: 1,
    maximum: 500,
    default: 50,
    description: 'At most this many runs.',
    'x-error-reason': 'InvalidLimit',
  },
  continue: {
    type: 'string',
    description: 'The `continue` of the page before (`InvalidContinueToken` when it is not one).',
  },
} as const;
// Closed: a parameter the route does not read is refused, never silently ignored.
const PAGE_QUERY = { type: 'object', additionalProperties: false, properties: PAGE_PARAMETERS } as const;
export const MESSAGE = { type: 'string', maxLength: 4096 } as const;
/**
 * `{"override": {"reason"}}` (issue 45 item 3): act although the Project's approval windows, its freeze or a soak
 * time refuse; needs `override` on the route's resource (403 otherwise), and the reason is required (400).
 */
export const OVERRIDE = {
  type: 'object',
  required: ['reason'],
  additionalProperties: false,
  description:
    "Override the Project's approval windows, freeze or soak time (docs/resources.md \"Windows, freezes and overrides\"): needs the `override` verb on the route's resource; `reason` is recorded in the audit trail (and on a stage's approval record).",
  properties: { reason: { type: 'string', minLength: 1, maxLength: 1024 } },
} as const;
const TIME_GATE_ERRORS =
  "the Project's approval windows refuse it now (`OutsideApprovalWindow`, naming the window and when it opens), or the Project is frozen (`ProjectFrozen`)";
/** `verb` on a Project's `workspaces/runs`, named by the path's Workspace (or, without one, any Workspace there). */
const runsOf = (verb: string, named: boolean) =>
  ({
    attributes: {
      verb,
      group: 'platform',
      resource: 'workspaces',
      subresource: 'runs',
      namespaceParameter: 'project',
      ...(named ? { nameParameter: 'workspace' } : {}),
    },
  }) as const;
/** `verb` on `workspaces/<subresource>` named by the Workspace of the path's run, read first. */
export const runWorkspaceAuthorization = <const Verb extends string, const Subresource extends string>(
  verb: Verb,
  subresource: Subresource,
) =>
  ({
    resolver: 'runWorkspace',
    attributes: { verb, group: 'platform', resource: 'workspaces', subresource, namespaceParameter: 'project' },
  }) as const;
export const DATABASE_ERRORS = {
  503: 'The database (or the Kubernetes API, or the token verifier) is unavailable; retry after `Retry-After`.',
};

/** The run history routes under `/api/v1alpha1/projects/{project}/` (served by the resources function). */
export function runRoutes() {
  const project = '/api/v1alpha1/projects/{project}';
  return declareRoutes([
    {
      method: 'POST',
      path: `${project}/workspaces/{workspace}/runs`,
      target: 'resources',
      auth: 'bearer',
      operationId: 'startRun',
      authorization: runsOf('create', true),
      summary:
        "Start a plan or apply run of a Workspace; it is recorded `Pending` with the caller as its principal. An apply run starts this way only where the Workspace allows it (`spec.allowApplyWithoutPlan`); elsewhere an apply comes from approving a succeeded plan (`POST .../runs/{run}/apply`). An apply must be allowed by the Project's approval windows and freeze (`spec.approvalPolicy`, issue 45) unless `override` is given by a caller with the `override` verb on `workspaces/runs`. Authorized as `create` on `workspaces/runs` (name: the Workspace).",
      requestSchema: {
        type: 'object',
        required: ['type'],
        additionalProperties: false,
        properties: { type: { enum: ['plan', 'apply'] }, message: MESSAGE, override: OVERRIDE },
        'x-error-reason': 'InvalidRun',
      },
      responseSchema: RUN_ANSWER_SCHEMA,
      successStatus: 201,
      errorResponses: {
        400: 'Malformed body (`InvalidRun`), an override without a reason, or an override of a plan run.',
        403: 'An override without the `override` verb on `workspaces/runs` (`Forbidden`).',
        404: 'No such Workspace (`WorkspaceNotFound`).',
        409: `The Workspace is suspended (\`WorkspaceSuspended\`), or an apply without a plan where it applies only reviewed plans, or where the approval policy of the Project gates its applies (\`ApplyNeedsPlan\`), or, for an apply, ${TIME_GATE_ERRORS}.`,
        ...DATABASE_ERRORS,
      },
    },
    {
      method: 'GET',
      path: `${project}/workspaces/{workspace}/runs`,
      target: 'resources',
      auth: 'bearer',
      operationId: 'listWorkspaceRuns',
      authorization: runsOf('list', true),
      querySchema: PAGE_QUERY,
      summary: `List a Workspace's runs. ${RUN_PAGE_QUERY} Authorized as \`list\` on \`workspaces/runs\` (name: the Workspace).`,
      responseSchema: RUN_ANSWER_PAGE_SCHEMA,
      errorResponses: { 400: 'Bad `limit` or `continue` (`InvalidContinueToken`).', ...DATABASE_ERRORS },
    },
    {
      method: 'GET',
      path: `${project}/runs`,
      target: 'resources',
      auth: 'bearer',
      operationId: 'listProjectRuns',
      authorization: runsOf('list', false),
      querySchema: PAGE_QUERY,
      summary: `List a Project's runs across its Workspaces. ${RUN_PAGE_QUERY} Authorized as \`list\` on \`workspaces/runs\` in the namespace.`,
      responseSchema: RUN_ANSWER_PAGE_SCHEMA,
      errorResponses: { 400: 'Bad `limit` or `continue` (`InvalidContinueToken`).', ...DATABASE_ERRORS },
    },
    {
      method: 'GET',
      path: `${project}/runs/{run}`,
      target: 'resources',
      auth: 'bearer',
      operationId: 'getRun',
      authorization: runWorkspaceAuthorization('get', 'runs'),
      summary: "Read one run. Authorized as `get` on `workspaces/runs` (name: the run's Workspace).",
      responseSchema: RUN_ANSWER_SCHEMA,
      errorResponses: { 404: 'No such run in this Project (`RunNotFound`).', ...DATABASE_ERRORS },
    },
    {
      method: 'POST',
      path: `${project}/runs/{run}/cancel`,
      target: 'resources',
      auth: 'bearer',
      // Cancelling is authorized like starting: whoever may start runs in the Workspace may cancel them.
      operationId: 'cancelRun',
      authorization: runWorkspaceAuthorization('create', 'runs'),
      summary:
        "Cancel a run: a Pending one is Cancelled at once; a Running one is marked (`cancelRequestedAt`) and its controller acknowledges at its next lease renewal. No body. Authorized like starting runs: `create` on `workspaces/runs` (name: the run's Workspace).",
      responseSchema: RUN_ANSWER_SCHEMA,
      errorResponses: {
        404: 'No such run in this Project (`RunNotFound`).',
        409: 'The run already Succeeded or Failed (`InvalidPhaseTransition`).',
        ...DATABASE_ERRORS,
      },
    },
    {
      method: 'POST',
      path: `${project}/runs/{run}/apply`,
      target: 'resources',
      auth: 'bearer',
      operationId: 'applyPlan',
      authorization: runWorkspaceAuthorization('approve', 'runs'),
      summary:
        "Approve a succeeded plan run for apply (issue 37, issue 45 item 2): records the caller's approval (who, when, its groups) and, once the plan's approvals meet what the Project's approval policy asks of the Workspace's applies (`spec.approvalPolicy.applies[].approvals`: `count` distinct approvers, one from each of `groups`, none the plan's principal under four eyes; one approval where it asks nothing), records a `Pending` apply run bound to it (`planRun`), with the caller as its principal, which the controller is handed on claim so that it applies exactly that plan. Refused when the plan is stale: a newer plan or apply of the Workspace exists (a plan is applied at most once), or it finished longer ago than PLAN_APPROVAL_MAX_AGE (24h by default); and when the Workspace is no longer the object and spec it was planned for (issue 45: a plan records the Workspace's uid and generation and the versions of its VariableSets); the `planApproval` of the plan run states both beforehand. Refused too while the plan's post_plan run tasks (issue 48) have not all answered (`RunTasksPending`) or a mandatory one failed or timed out (`RunTaskFailed`, unless overridden): `planApproval.blockedBy` says so. Optional body `{\"message\", \"override\"}`: the Project's approval windows and freeze (`spec.approvalPolicy`, issue 45) must allow the apply unless `override` is given by a caller with the `override` verb on `workspaces/runs`. 201 with the apply run; while more approvals are needed, 202 with the plan run (its `planApproval.approvals` and `stillNeeded`) and `Location` of the plan run. Authorized as `approve` on `workspaces/runs` (name: the plan run's Workspace).",
      requestSchema: {
        type: 'object',
        additionalProperties: false,
        properties: { message: MESSAGE, override: OVERRIDE },
        'x-error-reason': 'InvalidRun',
      },
      responseSchema: RUN_ANSWER_SCHEMA,
      successStatus: 201,
      errorResponses: {
        202: "The approval is recorded and the policy needs more: the plan run's answer, with `planApproval.approvals` and `stillNeeded`; `Location` is the plan run's.",
        400: 'Malformed body (`InvalidRun`), or an override without a reason.',
        403: 'An override without the `override` verb on `workspaces/runs` (`Forbidden`).',
        404: 'No such run in this Project (`RunNotFound`), or its Workspace is gone (`WorkspaceNotFound`).',
        409: `The caller has already approved the plan (\`AlreadyApproved\`), the run is not a succeeded plan (\`NotASucceededPlan\`), the plan is stale: its apply started already, or it is superseded or too old (\`PlanStale\`), the Workspace is no longer the object and spec it was planned for: deleted and re-created, its spec or a VariableSet changed (\`PlanWorkspaceChanged\`), the approval policy of the Project asks four eyes and the caller started the plan (\`ApproverIsAuthor\`), the Workspace is suspended (\`WorkspaceSuspended\`), its post_plan run tasks have not all answered (\`RunTasksPending\`) or a mandatory one failed (\`RunTaskFailed\`), or ${TIME_GATE_ERRORS}.`,
        ...DATABASE_ERRORS,
      },
    },
    {
      method: 'POST',
      path: `${project}/runs/{run}/withdraw`,
      target: 'resources',
      auth: 'bearer',
      operationId: 'withdrawPlanApproval',
      authorization: runWorkspaceAuthorization('approve', 'runs'),
      summary:
        "Withdraw an approval of a plan run for apply (issue 45 item 2), as the Rollout withdraw route does for a stage: removes `approver`'s approval (the caller's own when not given), so that it no longer counts toward the Project's policy. Refused once the plan's approvals started its apply run. The audit event names the caller and the approver whose approval was withdrawn, with the plan's principal. Optional body `{\"approver\"}`. 200 with the plan run (its `planApproval`). Authorized as `approve` on `workspaces/runs` (name: the plan run's Workspace).",
      requestSchema: {
        type: 'object',
        additionalProperties: false,
        properties: {
          approver: {
            type: 'string',
            minLength: 1,
            maxLength: 512,
            description:
              "Whose approval to withdraw, as the plan's `planApproval.approvals[].approvedBy` names it; the caller's own when not given.",
          },
        },
        'x-error-reason': 'InvalidRun',
      },
      responseSchema: RUN_ANSWER_SCHEMA,
      errorResponses: {
        400: 'Malformed body (`InvalidRun`).',
        404: 'No such run in this Project (`RunNotFound`), or no approval of it by that approver (`ApprovalNotFound`).',
        409: 'The approvals of the plan already started its apply run (`ApplyAlreadyStarted`).',
        ...DATABASE_ERRORS,
      },
    },
  ]);
}

/** The run-log stream: the one route that takes `?access_token=` (browsers' EventSource sets no header). */
export function runLogRoutes() {
  return declareRoutes([
    {
      method: 'GET',
      path: '/api/v1alpha1/run-logs/{project}/{run}',
      target: 'run-logs',
      auth: 'bearer-or-query',
      operationId: 'streamRunLogs',
      authorization: runWorkspaceAuthorization('get', 'log'),
      summary:
        "Stream a run's log lines as server-sent events (`id:` = line number; honours `Last-Event-ID`; a heartbeat comment every 15 s; `event: end` once the run is final; `event: expired` when the token ends; `event: resume` when the client fell behind; `event: removed` when retention removed the log or the run before every line was sent). The only route that accepts `?access_token=`. Authorized as `get` on `workspaces/log` (name: the run's Workspace).",
      responseMediaType: 'text/event-stream',
      errorResponses: {
        404: 'No such run in this Project (`RunNotFound`).',
        429: 'The principal already has RUN_LOG_MAX_STREAMS_PER_PRINCIPAL streams open (`TooManyStreams`); retry after `Retry-After`.',
        503: 'The database is unavailable; retry after `Retry-After`.',
      },
    },
  ]);
}
