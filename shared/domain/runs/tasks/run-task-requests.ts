import { RUN_TASK, WORKSPACE } from '../../../contract/kinds/platform-kinds.ts';
import type { PlatformObject } from '../../../contract/kinds/platform-object.ts';
import type { ClusterObjects } from '../../resources/cluster-objects.ts';
import { judgedPlanRun, type RunPlanJson } from '../plan-json/run-plan-json.ts';
import type { Run } from '../run.ts';
import { type RunTaskObject, runTaskSecretLabel } from './run-task-objects.ts';
import { SIGNATURE_HEADER, type RunTaskStage, taskRequestPayload, taskRequestSignature } from './run-task-protocol.ts';
import type { RunTaskResults } from './run-task-results.ts';

/** One POST to a task server: the URL, the headers and the exact bytes signed. */
export interface TaskRequest {
  url: string;
  headers: Readonly<Record<string, string>>;
  body: string;
}

/** What to do for one delivery to a task: send this request, or drop it (the result no longer waits, the task is gone). */
export type TaskRequestAnswer = { request: TaskRequest } | { drop: string };

/** Where the links of a request point. */
export interface TaskRequestLinks {
  apiGroup: string;
  /** API_BASE_URL: the callback and the log are this server's routes. */
  apiBaseUrl: string;
  /** The console's origin, when there is one: the run's page there is `run_app_url`. */
  consoleUrl?: string | undefined;
}

interface SecretObject {
  metadata: { labels?: Record<string, string> };
  data?: Record<string, string>;
}

/**
 * Builds each request of a run task (issue 48, item 2) as HCP Terraform sends one: the payload of the task result
 * still waiting, a fresh access token for it (the one of the request before stops working), signed with the HMAC
 * key of the RunTask's Secret when it names one. The RunTask is read as it is at each attempt, so a deleted one
 * drops its deliveries; its enforcement stays as it was when the run reached the stage. The key is used only from
 * a Secret labelled `<group>/run-task-secret=true`, so a RunTask cannot sign with a Secret made for something
 * else, and it appears in no error.
 */
export class RunTaskRequests {
  readonly #objects: () => Promise<ClusterObjects>;
  readonly #results: () => Promise<RunTaskResults>;
  readonly #links: TaskRequestLinks;
  readonly #planJson: () => Promise<Pick<RunPlanJson, 'has'>>;

  constructor(
    objects: () => Promise<ClusterObjects>,
    results: () => Promise<RunTaskResults>,
    links: TaskRequestLinks,
    planJson: () => Promise<Pick<RunPlanJson, 'has'>>,
  ) {
    this.#objects = objects;
    this.#results = results;
    this.#links = links;
    this.#planJson = planJson;
  }

  /** The request for `task`'s result of run `runId`. */
  async requestFor(runId: string, task: string): Promise<TaskRequestAnswer> {
    const results = await this.#results();
    const waiting = await results.waiting(runId, task);
    if (!waiting) return { drop: `run ${runId} no longer waits for run task ${task}` };
    const { run, result } = waiting;
    const objects = await this.#objects();
    const runTask = await objects.find<RunTaskObject>(
      objects.platformPath(RUN_TASK, { namespace: run.project, name: task }),
    );
    if (!runTask) return { drop: `RunTask ${run.project}/${task} was deleted` };
    const workspace = await objects.find<PlatformObject>(
      objects.platformPath(WORKSPACE, { namespace: run.project, name: run.workspace }),
    );
    const hmacKey = runTask.spec.hmacKeySecretRef
      ? await this.#hmacKey(objects, run.project, runTask.spec.hmacKeySecretRef)
      : undefined;
    const issued = await results.issueToken(result.id);
    if (!issued) return { drop: `run ${runId} no longer waits for run task ${task}` };
    const base = this.#links.apiBaseUrl.replace(/\/+$/, '');
    const project = encodeURIComponent(run.project);
    const body = JSON.stringify(
      taskRequestPayload({
        run,
        stage: result.stage,
        enforcement: result.enforcement,
        taskResultId: result.id,
        workspaceId: workspace?.metadata.uid ?? '',
        accessToken: issued.token,
        urls: {
          callback: `${base}/api/v1alpha1/task-results/${result.id}/callback`,
          runLog: `${base}/api/v1alpha1/task-results/${result.id}/run-log`,
          planJson: (await this.#hasPlanJson(run, result.stage))
            ? `${base}/api/v1alpha1/task-results/${result.id}/plan-json`
            : null,
          runApp: this.#links.consoleUrl
            ? `${this.#links.consoleUrl.replace(/\/+$/, '')}/#/projects/${project}/runs/${run.id}`
            : `${base}/api/v1alpha1/projects/${project}/runs/${run.id}`,
          workspaceApp: `${base}/apis/${this.#links.apiGroup}/v1alpha1/namespaces/${project}/workspaces/${encodeURIComponent(run.workspace)}`,
        },
      }),
    );
    return {
      request: {
        url: runTask.spec.url,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'platform-api-run-tasks/1',
          ...(hmacKey === undefined ? {} : { [SIGNATURE_HEADER]: taskRequestSignature(body, hmacKey) }),
        },
        body,
      },
    };
  }

  /**
   * Whether the plan the task judges has its JSON already, as HCP Terraform links `plan_json_api_url` only once the
   * plan exists: never before a plan (pre_plan); for an apply, its plan's when the controller uploaded one.
   */
  async #hasPlanJson(run: Run, stage: RunTaskStage): Promise<boolean> {
    const planRun = stage === 'pre_plan' ? null : judgedPlanRun(run);
    return planRun !== null && (await this.#planJson()).has(planRun);
  }

  async #hmacKey(objects: ClusterObjects, namespace: string, ref: { name: string; key: string }): Promise<string> {
    const secret = await objects.find<SecretObject>(objects.corePath('secrets', { namespace, name: ref.name }));
    if (!secret) throw new Error(`Secret ${namespace}/${ref.name} does not exist`);
    const label = runTaskSecretLabel(this.#links.apiGroup);
    if (secret.metadata.labels?.[label] !== 'true')
      throw new Error(`Secret ${namespace}/${ref.name} is not labelled ${label}=true, so no RunTask may use it`);
    const encoded = secret.data?.[ref.key];
    if (encoded === undefined) throw new Error(`Secret ${namespace}/${ref.name} has no key ${ref.key}`);
    return Buffer.from(encoded, 'base64').toString('utf8');
  }
}
