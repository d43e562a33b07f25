import { declareRoutes, type RouteDefinition } from './route-definition.ts';
import { DATABASE_ERRORS, MESSAGE, PAGE_PARAMETERS, RUN_PAGE_SCHEMA, RUN_SCHEMA } from './run-routes.ts';
import { TASK_RESULT_SCHEMA } from './run-task-routes.ts';

/** The workspace controller's routes: RBAC's `nonResourceURLs` decide who may call what, before any input is read. */
export const NON_RESOURCE = { nonResourcePath: true } as const;
const INTERNAL_AUTH =
  'Authorized as a non-resource SubjectAccessReview on the path (`nonResourceURLs: ["/internal/*"]`).';
const LEASE_SCHEMA = {
  type: 'object',
  required: ['id', 'expiresAt', 'attempt', 'nextLogSeq', 'cancelRequested'],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'Carried by every renewal, log append and phase change.' },
    expiresAt: { type: 'string', format: 'date-time' },
    attempt: { type: 'integer' },
    nextLogSeq: {
      type: 'integer',
      description: 'The number of the next log line: where this holder continues the log.',
    },
    cancelRequested: { type: 'boolean', description: 'A user asked to cancel: stop, then set the phase Cancelled.' },
  },
};
const LEASED_RUN_SCHEMA = {
  type: 'object',
  required: ['run', 'lease'],
  properties: { run: RUN_SCHEMA, lease: LEASE_SCHEMA },
};
const LEASE_ID = {
  type: 'string',
  format: 'uuid',
  description: 'The `lease.id` of the claim.',
  'x-error-reason': 'InvalidLease',
} as const;
const LEASE_SECONDS = {
  type: 'integer',
  minimum: 1,
  maximum: 600,
  default: 60,
  description: 'How long the lease lasts; renew well before (a third is usual).',
  'x-error-reason': 'InvalidLease',
} as const;
const CLAIMED_NAME = { type: 'string', minLength: 1, maxLength: 253, 'x-error-reason': 'InvalidClaim' } as const;
const LEASE_ERRORS = {
  404: 'No such run (`RunNotFound`).',
  409: "The lease is not the current holder's (`LeaseNotHeld`).",
  ...DATABASE_ERRORS,
};

/** The workspace controller's routes under `/internal/` (the catch-all `/internal/*` comes after them). */
export function internalRoutes() {
  const route = <
    const Method extends string,
    const Path extends string,
    const Id extends string,
    const Extra extends Partial<RouteDefinition>,
  >(
    method: Method,
    path: Path,
    operationId: Id,
    summary: string,
    extra: Extra,
  ) => ({
    method,
    path,
    target: 'internal' as const,
    auth: 'bearer' as const,
    operationId,
    summary: `${summary} ${INTERNAL_AUTH}`,
    authorization: NON_RESOURCE,
    ...extra,
  });
  return declareRoutes([
    route(
      'GET',
      '/internal/runs',
      'listRunsInPhase',
      'Runs in one phase across every Project, oldest first: a view of the work queue. Query: `phase` (default Pending), `limit` (1..500, default 50), `continue`.',
      {
        querySchema: {
          type: 'object',
          additionalProperties: false,
          properties: {
            phase: { enum: ['Pending', 'Running'], default: 'Pending', 'x-error-reason': 'InvalidPhase' },
            ...PAGE_PARAMETERS,
          },
        },
        responseSchema: RUN_PAGE_SCHEMA,
        errorResponses: { 400: 'Bad `phase`, `limit` or `continue`.', ...DATABASE_ERRORS },
      },
    ),
    route(
      'POST',
      '/internal/runs/claim',
      'claimRun',
      'Claim the oldest Pending run (of one Project or Workspace, if named) with a lease: it becomes Running, `attempts` + 1, the caller is recorded as its `controller`. Leases that lapsed are collected first. 204 when no run is waiting.',
      {
        requestSchema: {
          type: 'object',
          additionalProperties: false,
          properties: {
            project: CLAIMED_NAME,
            workspace: { ...CLAIMED_NAME, description: 'Only with `project`.' },
            leaseSeconds: LEASE_SECONDS,
          },
          dependentRequired: { workspace: ['project'] },
        },
        responseSchema: {
          ...LEASED_RUN_SCHEMA,
          required: [...LEASED_RUN_SCHEMA.required, 'unmaskedSensitiveValues', 'runTasks'],
          properties: {
            ...LEASED_RUN_SCHEMA.properties,
            runTasks: {
              type: 'object',
              required: ['mayProceed', 'results'],
              description:
                "The run's tasks at its stage (issue 48, docs/run-tasks.md): a run is claimable only once they let it proceed, so `mayProceed` is true; a controller that finds it false stops the run as Failed. `results` lists each (advisory failures included) for the log.",
              properties: {
                mayProceed: { type: 'boolean' },
                results: { type: 'array', items: TASK_RESULT_SCHEMA },
              },
            },
            unmaskedSensitiveValues: {
              type: 'array',
              items: { type: 'string' },
              description:
                'Names (never values) of the run\'s sensitive variables shorter than 4 characters: they are not masked in its log. Every other sensitive value, and its base64, URL and JSON encodings, becomes `***` in the lines appended (docs/run-history.md, "Masking").',
            },
          },
        },
        errorResponses: { 204: 'No run is waiting (no body).', ...DATABASE_ERRORS },
      },
    ),
    route(
      'POST',
      '/internal/runs/{run}/lease',
      'renewRunLease',
      'Renew the lease for `leaseSeconds` from now; `lease.cancelRequested` says whether a user asked to cancel.',
      {
        requestSchema: {
          type: 'object',
          required: ['leaseId'],
          additionalProperties: false,
          properties: { leaseId: LEASE_ID, leaseSeconds: LEASE_SECONDS },
        },
        responseSchema: LEASED_RUN_SCHEMA,
        errorResponses: LEASE_ERRORS,
      },
    ),
    route(
      'POST',
      '/internal/runs/{run}/phase',
      'setRunPhase',
      "End a running run: Succeeded, Failed, or Cancelled to acknowledge a requested cancellation; `message` becomes the run's `statusMessage`. A plan that succeeded may say whether it proposes changes (`hasChanges`, OpenTofu's `-detailed-exitcode` 2 or 0): the run's `planHasChanges`, and the `PlanFinishedWithChanges` or `PlanFinishedWithoutChanges` notification. A retry of the same call answers the run again.",
      {
        requestSchema: {
          type: 'object',
          required: ['leaseId', 'phase'],
          additionalProperties: false,
          properties: {
            leaseId: LEASE_ID,
            phase: { enum: ['Succeeded', 'Failed', 'Cancelled'], 'x-error-reason': 'InvalidPhase' },
            message: { ...MESSAGE, 'x-error-reason': 'InvalidMessage' },
            hasChanges: { type: 'boolean', 'x-error-reason': 'InvalidPlanChanges' },
          },
        },
        responseSchema: RUN_SCHEMA,
        errorResponses: {
          ...LEASE_ERRORS,
          400: 'A bad phase or message, or `hasChanges` other than on a plan that succeeds (`InvalidPlanChanges`).',
          409: "The lease is not the current holder's (`LeaseNotHeld`), or Cancelled without a requested cancellation (`InvalidPhaseTransition`).",
        },
      },
    ),
    route(
      'POST',
      '/internal/runs/{run}/logs',
      'appendRunLogs',
      "Append a numbered chunk of log lines: `firstSeq` is the number of its first line (`lease.nextLogSeq` at first). The run's sensitive values (as resolved at the claim) are stored, notified and streamed as `***`, also when split over two lines or chunks. A chunk stored before is acknowledged with `duplicate: true` and not stored again; one that repeats stored lines with the same text and goes on stores only the rest (`storedBefore`). A chunk sent before the one it follows (pipelined) waits for it. A lease is bound to the principal that claimed it. Durable once answered.",
      {
        requestSchema: {
          type: 'object',
          required: ['leaseId', 'firstSeq', 'lines'],
          additionalProperties: false,
          properties: {
            leaseId: LEASE_ID,
            firstSeq: { type: 'integer', minimum: 1, 'x-error-reason': 'InvalidLogLines' },
            lines: {
              type: 'array',
              minItems: 1,
              maxItems: 5000,
              items: { type: 'string' },
              'x-error-reason': 'InvalidLogLines',
            },
          },
        },
        responseSchema: {
          type: 'object',
          required: ['firstSeq', 'lastSeq', 'nextSeq', 'duplicate', 'storedBefore'],
          properties: {
            firstSeq: { type: 'integer' },
            lastSeq: { type: 'integer' },
            nextSeq: { type: 'integer' },
            duplicate: { type: 'boolean', description: 'Every line was stored before with the same text (a retry).' },
            storedBefore: {
              type: 'integer',
              description:
                "How many of the chunk's first lines were stored before with the same text (a retry that goes on); only the rest were stored now.",
            },
          },
        },
        errorResponses: {
          ...LEASE_ERRORS,
          409: "Not the holder's lease (`LeaseNotHeld`), a gap before `firstSeq` that the log did not fill within 2 s (`LogSequenceGap`), or other text over stored lines (`LogChunkConflict`, naming the first line that differs).",
        },
      },
    ),
    route(
      'GET',
      '/internal/runs/{run}/variables',
      'getRunVariables',
      "The run's variables, resolved: the Workspace's VariableSets in `spec.variableSetRefs` order (a later one replaces a variable of the same name), sensitive values read from their Secrets. Only here, never logged. Needs the current lease in the `Run-Lease` header.",
      {
        responseSchema: {
          type: 'object',
          required: ['variables'],
          properties: {
            variables: {
              type: 'array',
              items: {
                type: 'object',
                required: ['name', 'category', 'hcl', 'sensitive', 'value', 'variableSet'],
                properties: {
                  name: { type: 'string' },
                  category: { enum: ['terraform', 'env'] },
                  hcl: { type: 'boolean' },
                  sensitive: { type: 'boolean' },
                  value: { type: 'string' },
                  variableSet: { type: 'string' },
                },
              },
            },
          },
        },
        errorResponses: {
          ...LEASE_ERRORS,
          400: 'No `Run-Lease` header, or not a lease id.',
          404: 'No such run (`RunNotFound`) or Workspace (`WorkspaceNotFound`).',
          409: "Not the holder's lease (`LeaseNotHeld`), or a VariableSet or Secret key the Workspace refers to is missing (`VariableSetNotFound`, `VariableSecretNotFound`).",
        },
      },
    ),
    route(
      'POST',
      '/internal/runs/{run}/plan-json',
      'putRunPlanJson',
      "Keep the plan's JSON of a plan run (issue 48; docs/run-tasks.md): the body is the `terraform show -json` document of the plan, as `application/json`, sent before the run's phase is set. Its run tasks read it (`plan_json_api_url` of the requests sent after it), and so do readers of the run's log. A retry replaces it. At most RUN_PLAN_JSON_MAX_BYTES. Needs the current lease in the `Run-Lease` header.",
      {
        requestSchema: {
          type: 'object',
          required: ['format_version'],
          properties: { format_version: { type: 'string' } },
          description: 'The `terraform show -json` (or `tofu show -json`) document of the plan, kept as sent.',
          'x-error-reason': 'InvalidPlanJson',
        },
        successStatus: 204,
        errorResponses: {
          ...LEASE_ERRORS,
          400: 'No `Run-Lease` header, or not a lease id (`InvalidLease`); a body that is no plan JSON document (`InvalidPlanJson`).',
          409: "Not the holder's lease (`LeaseNotHeld`), or an apply run (`NotAPlanRun`).",
          413: 'The document is over RUN_PLAN_JSON_MAX_BYTES or MAX_REQUEST_BODY_BYTES (`PayloadTooLarge`); nothing is kept.',
        },
      },
    ),
    route(
      'POST',
      '/internal/outbound/sweep',
      'sweepOutbound',
      "Sweep the outbound engine once (issue 47; docs/notifications.md): route new events to their receivers, claim what is due on this instance's leases and deliver it, answering when every attempt is recorded. Called by the chart's scheduled trigger, so delivery goes on while every function is scaled to zero; any number of instances may sweep at once.",
      {
        responseSchema: {
          type: 'object',
          required: ['routed', 'claimed', 'delivered', 'retried', 'givenUp', 'held'],
          properties: {
            routed: { type: 'integer', description: 'Events matched to their receivers.' },
            claimed: { type: 'integer', description: 'Deliveries attempted by this sweep.' },
            delivered: { type: 'integer' },
            retried: { type: 'integer', description: 'Attempts that failed, with attempts left.' },
            givenUp: {
              type: 'integer',
              description: 'Attempts that failed on the last attempt (OUTBOUND_MAX_ATTEMPTS).',
            },
            held: { type: 'integer', description: 'Deliveries of paused receivers, left for later.' },
          },
        },
        errorResponses: DATABASE_ERRORS,
      },
    ),
    {
      method: '*',
      path: '/internal/*',
      target: 'internal',
      auth: 'bearer',
      operationId: 'internal',
      authorization: NON_RESOURCE,
      summary: 'Any other route of the workspace controller (404 once authorized), called with a ServiceAccount token.',
      answersOnlyErrors: true,
      errorResponses: { 404: 'No such route of the workspace controller (once authorized).' },
    },
  ]);
}
