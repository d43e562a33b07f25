import { declareRoutes } from './route-definition.ts';
import { DATABASE_ERRORS, RUN_SCHEMA, runWorkspaceAuthorization } from './run-routes.ts';

// Run tasks (issue 48, docs/run-tasks.md): what users read and override on a run (resources function), and the
// two routes a run task calls with the access token of its request, as HCP Terraform's tasks do.

const TASK_RESULT_ID = {
  type: 'string',
  pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
  maxLength: 36,
  description: "A task result id (the request's `task_result_id`, a UUID, lower case).",
} as const;

const OUTCOME_SCHEMA = {
  type: 'object',
  required: ['outcomeId', 'description'],
  properties: {
    outcomeId: { type: 'string', description: "The task's `outcome-id`." },
    description: { type: 'string' },
    body: { type: 'string', description: 'Markdown.' },
    url: { type: 'string' },
    tags: {
      type: 'object',
      description: 'As the task sent them (`Status`, `Severity`, ... with `label` and `level`).',
    },
  },
};

export const TASK_RESULT_SCHEMA = {
  type: 'object',
  required: [
    'id',
    'runId',
    'task',
    'stage',
    'enforcement',
    'status',
    'message',
    'url',
    'outcomes',
    'deadline',
    'createdAt',
    'updatedAt',
    'overriddenBy',
    'overrideReason',
    'overriddenAt',
  ],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'The `task_result_id` sent to the task.' },
    runId: { type: 'string', format: 'uuid' },
    task: { type: 'string', description: "The RunTask's name in the run's Project." },
    stage: { enum: ['pre_plan', 'post_plan', 'pre_apply'] },
    enforcement: {
      enum: ['advisory', 'mandatory'],
      description: 'As the RunTask said when the run reached the stage.',
    },
    status: {
      enum: ['pending', 'running', 'passed', 'failed', 'errored'],
      description:
        '`pending` until the task reports; `running`, `passed`, `failed` as it reports; `errored` when it did not answer before `deadline`.',
    },
    message: { type: 'string' },
    url: { type: ['string', 'null'], description: "The task's link to its details." },
    outcomes: { type: 'array', items: OUTCOME_SCHEMA },
    deadline: {
      type: 'string',
      format: 'date-time',
      description: 'RUN_TASK_TIMEOUT after the run reached the stage: no answer by then is `errored`.',
    },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    overriddenBy: {
      type: ['string', 'null'],
      description: 'Who let the run proceed past this failed mandatory result.',
    },
    overrideReason: { type: ['string', 'null'] },
    overriddenAt: { type: ['string', 'null'], format: 'date-time' },
  },
};

const TOKEN_AUTH =
  "Authenticated by the `access_token` of the run task request this task result was sent with (`Authorization: Bearer`), until the result's deadline; no other token is accepted, and the token is accepted nowhere else.";
const TOKEN_ERRORS = {
  401: 'No token, or not the current access token of a task result still waiting (`InvalidTaskResultToken`).',
  403: "The token is another task result's (`TaskResultTokenMismatch`).",
};

/** The run task routes. */
export function runTaskRoutes() {
  const project = '/api/v1alpha1/projects/{project}';
  const taskResult = '/api/v1alpha1/task-results/{taskResult}';
  return declareRoutes([
    {
      method: 'GET',
      path: `${project}/runs/{run}/task-results`,
      target: 'resources',
      auth: 'bearer',
      operationId: 'listRunTaskResults',
      authorization: runWorkspaceAuthorization('get', 'runs'),
      summary:
        "The results of a run's tasks (issue 48), by stage and task: status, message, link, outcomes, and any override. Authorized as `get` on `workspaces/runs` (name: the run's Workspace).",
      responseSchema: {
        type: 'object',
        required: ['items'],
        properties: { items: { type: 'array', items: TASK_RESULT_SCHEMA } },
      },
      errorResponses: { 404: 'No such run in this Project (`RunNotFound`).', ...DATABASE_ERRORS },
    },
    {
      method: 'POST',
      path: `${project}/runs/{run}/override-tasks`,
      target: 'resources',
      auth: 'bearer',
      operationId: 'overrideRunTasks',
      authorization: runWorkspaceAuthorization('override', 'runs'),
      summary:
        'Let a run that failed on a mandatory run task proceed (issue 48): its failed mandatory results record the caller and the reason, the reason goes into the audit trail, and the run is `Pending` again for a controller to claim; a succeeded plan whose mandatory post_plan task failed or timed out stays Succeeded, its results record the caller and the reason, and it may be approved for apply. Body `{"reason"}`. Authorized as `override` on `workspaces/runs` (name: the run\'s Workspace).',
      requestSchema: {
        type: 'object',
        required: ['reason'],
        additionalProperties: false,
        properties: { reason: { type: 'string', minLength: 1, maxLength: 1024 } },
        'x-error-reason': 'InvalidOverride',
      },
      responseSchema: RUN_SCHEMA,
      errorResponses: {
        400: 'No reason, or an unknown field (`InvalidOverride`).',
        404: 'No such run in this Project (`RunNotFound`).',
        409: 'The run did not fail on a mandatory run task before a claim, nor is it a succeeded plan with a failed or timed-out mandatory post_plan task, or was overridden already (`NothingToOverride`).',
        ...DATABASE_ERRORS,
      },
    },
    {
      method: 'GET',
      path: `${project}/runs/{run}/plan-json`,
      target: 'resources',
      auth: 'bearer',
      operationId: 'getRunPlanJson',
      authorization: runWorkspaceAuthorization('get', 'log'),
      summary:
        "The plan's JSON of a plan run (issue 48), as its controller uploaded it (`terraform show -json`). Authorized as reading the run's log, `get` on `workspaces/log` (name: the run's Workspace): the document holds at least what the log shows.",
      responseSchema: { type: 'object', description: 'The `terraform show -json` document, as uploaded.' },
      errorResponses: {
        404: "No such run in this Project (`RunNotFound`), or it has no plan's JSON (`PlanJsonNotFound`).",
        ...DATABASE_ERRORS,
      },
    },
    {
      method: 'PATCH',
      path: `${taskResult}/callback`,
      target: 'resources',
      auth: 'task-result-token',
      operationId: 'reportTaskResult',
      authorization: { boundTaskResult: true },
      pathParameters: { taskResult: TASK_RESULT_ID },
      acceptsJsonApi: true,
      summary: `The run task's callback (\`task_result_callback_url\`), as HCP Terraform's: a JSON:API document \`{"data": {"type": "task-results", "attributes": {"status", "message", "url"}, "relationships": {"outcomes": {"data": [...]}}}}\` (\`application/vnd.api+json\` or \`application/json\`). \`running\` may come any number of times; \`passed\` or \`failed\` is final (a later callback is 409). ${TOKEN_AUTH}`,
      requestSchema: {
        type: 'object',
        required: ['data'],
        properties: { data: { type: 'object' } },
        'x-error-reason': 'InvalidTaskResult',
      },
      responseSchema: TASK_RESULT_SCHEMA,
      errorResponses: {
        400: 'Not a task result document (`InvalidTaskResult`, naming the field).',
        ...TOKEN_ERRORS,
        409: 'The result is final already (`TaskResultFinal`).',
        415: 'The body is neither `application/vnd.api+json` nor `application/json` (`UnsupportedMediaType`).',
        ...DATABASE_ERRORS,
      },
    },
    {
      method: 'GET',
      path: `${taskResult}/run-log`,
      target: 'resources',
      auth: 'task-result-token',
      operationId: 'readTaskRunLog',
      authorization: { boundTaskResult: true },
      pathParameters: { taskResult: TASK_RESULT_ID },
      summary: `The log of the task result's run so far, as text (the request's \`run_log_api_url\`). ${TOKEN_AUTH}`,
      responseMediaType: 'text/plain',
      errorResponses: { ...TOKEN_ERRORS, ...DATABASE_ERRORS },
    },
    {
      method: 'GET',
      path: `${taskResult}/plan-json`,
      target: 'resources',
      auth: 'task-result-token',
      operationId: 'readTaskPlanJson',
      authorization: { boundTaskResult: true },
      pathParameters: { taskResult: TASK_RESULT_ID },
      summary: `The plan's JSON the task judges (the request's \`plan_json_api_url\`): its plan run's for a plan run, the plan it was approved from for an apply run, as the controller uploaded it. ${TOKEN_AUTH}`,
      responseSchema: { type: 'object', description: 'The `terraform show -json` document, as uploaded.' },
      errorResponses: {
        ...TOKEN_ERRORS,
        404: "No plan's JSON was uploaded for the plan, or it was removed (`PlanJsonNotFound`).",
        ...DATABASE_ERRORS,
      },
    },
  ]);
}
