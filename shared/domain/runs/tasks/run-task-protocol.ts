import { createHmac } from 'node:crypto';
import { apiError } from '../../../base/http/error-catalogue.ts';
import type { Run } from '../run.ts';
import type {
  ReportedStatus,
  RunTaskEnforcement,
  RunTaskStage,
  TaskOutcome,
} from '../../../contract/rules/run-task-result.ts';

export type { ReportedStatus, RunTaskEnforcement, RunTaskStage, TaskOutcome };
export const RUN_TASK_STAGES: readonly RunTaskStage[] = ['pre_plan', 'post_plan', 'pre_apply'];

/** A RunTask a run waits for at its stage, as it was when the run reached the stage. */
export interface TaskAtStage {
  /** The RunTask's name in the run's Project. */
  name: string;
  enforcement: RunTaskEnforcement;
}

/** The run tasks a new run waits for: its stage, each task, and how long each may take (RUN_TASK_TIMEOUT). */
export interface TasksToAwait {
  stage: RunTaskStage;
  tasks: readonly TaskAtStage[];
  timeoutMs: number;
}

/** The stage a run waits at before a controller may claim it (post_plan comes after: it holds back the plan's apply). */
export const stageOf = (run: Pick<Run, 'type'>): Exclude<RunTaskStage, 'post_plan'> =>
  run.type === 'plan' ? 'pre_plan' : 'pre_apply';

/** The header HCP Terraform signs its run task requests in: the HMAC-SHA512 of the body, hex. */
export const SIGNATURE_HEADER = 'x-tfc-task-signature';

/** HCP Terraform's `payload_version`: the request below is version 1 of its run task payload. */
export const PAYLOAD_VERSION = 1;

/** Where the platform's own URLs for one task result live. */
export interface TaskResultUrls {
  /** `task_result_callback_url`: PATCH it with the result. */
  callback: string;
  /** The run's log, readable with the access token (the platform's addition: `run_log_api_url`). */
  runLog: string;
  /**
   * The plan's JSON the task judges, readable with the access token (`plan_json_api_url`): null when there is none
   * yet (always before a plan).
   */
  planJson: string | null;
  /** The run's page (`run_app_url`): the console's when there is one, else the run's record. */
  runApp: string;
  /** The Workspace (`workspace_app_url`). */
  workspaceApp: string;
}

/** What one request of a task result carries besides the run. */
export interface TaskRequestInput {
  run: Run;
  stage: RunTaskStage;
  enforcement: RunTaskEnforcement;
  taskResultId: string;
  /** The Workspace's uid (`workspace_id`). */
  workspaceId: string;
  accessToken: string;
  urls: TaskResultUrls;
}

/**
 * The body of a run task request as HCP Terraform sends it (payload version 1, docs/run-tasks.md compares
 * each field): the fields with no equivalent here (VCS, configuration versions) are sent as `null`
 * or `false`, so an integration that reads them finds the field it expects, empty.
 */
export function taskRequestPayload(input: TaskRequestInput): Record<string, unknown> {
  const { run } = input;
  return {
    payload_version: PAYLOAD_VERSION,
    stage: input.stage,
    access_token: input.accessToken,
    capabilities: { outcomes: true },
    configuration_version_download_url: null,
    configuration_version_id: null,
    is_speculative: false,
    organization_name: run.project,
    plan_json_api_url: input.urls.planJson,
    run_app_url: input.urls.runApp,
    run_created_at: run.createdAt,
    run_created_by: run.principal,
    run_id: run.id,
    run_message: run.message,
    task_result_callback_url: input.urls.callback,
    task_result_enforcement_level: input.enforcement,
    task_result_id: input.taskResultId,
    vcs_branch: null,
    vcs_commit_url: null,
    vcs_pull_request_url: null,
    vcs_repo_url: null,
    workspace_app_url: input.urls.workspaceApp,
    workspace_id: input.workspaceId,
    workspace_name: run.workspace,
    workspace_working_directory: '',
    // The platform's additions, under names HCP Terraform does not use.
    run_type: run.type,
    run_log_api_url: input.urls.runLog,
  };
}

/** `X-TFC-Task-Signature`: the HMAC-SHA512 of exactly the bytes sent, keyed with the task's HMAC key, in hex. */
export function taskRequestSignature(body: string, hmacKey: string): string {
  return createHmac('sha512', hmacKey).update(body).digest('hex');
}

/** A task's callback, read. */
export interface TaskCallback {
  status: ReportedStatus;
  message: string;
  url?: string;
  outcomes: TaskOutcome[];
}

const MAX_MESSAGE = 4096;
const MAX_URL = 2048;
const MAX_OUTCOMES = 64;
const MAX_OUTCOME_BODY = 65_536;

/**
 * Reads a callback body as HCP Terraform's JSON:API document (`data.type` = `task-results`,
 * `attributes.status`, `message`, `url`, `relationships.outcomes.data[].attributes`): anything else is 422
 * `InvalidTaskResult` naming the field, so a task learns at once what it got wrong.
 */
export function readTaskCallback(body: Record<string, unknown>): TaskCallback {
  const refuse = (field: string, why: string) => apiError('InvalidTaskResult', `${field} ${why}`);
  const data = object(body.data, () => refuse('data', 'must be an object'));
  if (data.type !== 'task-results') throw refuse('data.type', 'must be "task-results"');
  const attributes = object(data.attributes, () => refuse('data.attributes', 'must be an object'));
  const status = attributes.status;
  if (status !== 'running' && status !== 'passed' && status !== 'failed')
    throw refuse('data.attributes.status', 'must be running, passed or failed');
  const message = optionalString(attributes.message, MAX_MESSAGE, () =>
    refuse('data.attributes.message', `must be a string of at most ${MAX_MESSAGE} characters`),
  );
  const url = optionalUrl(attributes.url, () => refuse('data.attributes.url', 'must be an http or https URL'));
  const outcomes: TaskOutcome[] = [];
  const relationships =
    data.relationships === undefined
      ? {}
      : object(data.relationships, () => refuse('data.relationships', 'must be an object'));
  const related = relationships.outcomes;
  if (related !== undefined) {
    const list = object(related, () => refuse('data.relationships.outcomes', 'must be an object')).data;
    if (!Array.isArray(list) || list.length > MAX_OUTCOMES)
      throw refuse('data.relationships.outcomes.data', `must be an array of at most ${MAX_OUTCOMES} outcomes`);
    list.forEach((entry, index) => {
      const field = `data.relationships.outcomes.data[${index}]`;
      const outcome = object(entry, () => refuse(field, 'must be an object'));
      if (outcome.type !== 'task-result-outcomes') throw refuse(`${field}.type`, 'must be "task-result-outcomes"');
      const fields = object(outcome.attributes, () => refuse(`${field}.attributes`, 'must be an object'));
      const outcomeId = optionalString(fields['outcome-id'], 256, () =>
        refuse(`${field}.attributes.outcome-id`, 'must be a string of at most 256 characters'),
      );
      if (!outcomeId) throw refuse(`${field}.attributes.outcome-id`, 'is required');
      const tags =
        fields.tags === undefined
          ? undefined
          : object(fields.tags, () => refuse(`${field}.attributes.tags`, 'must be an object'));
      const outcomeBody = optionalString(fields.body, MAX_OUTCOME_BODY, () =>
        refuse(`${field}.attributes.body`, `must be a string of at most ${MAX_OUTCOME_BODY} characters`),
      );
      const outcomeUrl = optionalUrl(fields.url, () =>
        refuse(`${field}.attributes.url`, 'must be an http or https URL'),
      );
      outcomes.push({
        outcomeId,
        description:
          optionalString(fields.description, MAX_MESSAGE, () =>
            refuse(`${field}.attributes.description`, `must be a string of at most ${MAX_MESSAGE} characters`),
          ) ?? '',
        ...(outcomeBody === undefined ? {} : { body: outcomeBody }),
        ...(outcomeUrl === undefined ? {} : { url: outcomeUrl }),
        ...(tags === undefined ? {} : { tags }),
      });
    });
  }
  return { status, message: message ?? '', ...(url === undefined ? {} : { url }), outcomes };
}

function object(value: unknown, refusal: () => Error): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw refusal();
  return value as Record<string, unknown>;
}

function optionalString(value: unknown, max: number, refusal: () => Error): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > max) throw refusal();
  return value;
}

function optionalUrl(value: unknown, refusal: () => Error): string | undefined {
  const text = optionalString(value, MAX_URL, refusal);
  if (text === undefined || text === '') return undefined;
  if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol)) throw refusal();
  return text;
}
