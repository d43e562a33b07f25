// A run task's result as the run task routes answer it (issue 48, docs/run-tasks.md), declared once: the server
// keeps and answers it, and the plugin and the console read it (browser-safe, as the run record is).

/** When a run task runs: before a plan is handed to a controller, after a plan succeeded, before an apply. */
export type RunTaskStage = 'pre_plan' | 'post_plan' | 'pre_apply';

/** Advisory: recorded and shown; mandatory: a failure stops the run (or, after a plan, its apply). */
export type RunTaskEnforcement = 'advisory' | 'mandatory';

/** What a task may report (HCP Terraform's task result `status`). */
export type ReportedStatus = 'running' | 'passed' | 'failed';

/** Where a task result stands: `errored` when the task gave no answer before its deadline. */
export type TaskResultStatus = 'pending' | ReportedStatus | 'errored';

/** One structured finding of a task (HCP Terraform's `task-result-outcomes`), kept as it was sent. */
export interface TaskOutcome {
  outcomeId: string;
  description: string;
  body?: string;
  url?: string;
  tags?: Record<string, unknown>;
}

/** One run task's result, as it is kept with the run. */
export interface TaskResult {
  id: string;
  runId: string;
  task: string;
  stage: RunTaskStage;
  enforcement: RunTaskEnforcement;
  status: TaskResultStatus;
  message: string;
  url: string | null;
  outcomes: TaskOutcome[];
  /** Until when the task may answer (RUN_TASK_TIMEOUT after the run reached the stage). */
  deadline: string;
  createdAt: string;
  updatedAt: string;
  /** Who let the run proceed past this (mandatory, failed) result, and why; null when nobody did. */
  overriddenBy: string | null;
  overrideReason: string | null;
  overriddenAt: string | null;
}
