-- The plan's JSON for run tasks (issue 48, item 2; docs/run-tasks.md): the `terraform show -json` document of a plan
-- run, as the controller that held its lease uploaded it (`PUT /internal/runs/{run}/plan-json`), kept as the bytes
-- it sent (text: TOAST compresses it; the server never queries into it). A task that judges the plan reads it with
-- its request's access token (`plan_json_api_url`), a user with `get` on `workspaces/log`. One row per plan run at
-- most (a retry replaces it); removed with the run's log by RUN_LOG_RETENTION, and with the run (ON DELETE CASCADE)
-- by RUN_HISTORY_RETENTION.
CREATE TABLE run_plan_json (
  run_id      uuid        PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
  document    text        NOT NULL,
  uploaded_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
