-- Run tasks (issue 48, docs/run-tasks.md): a run whose Project has RunTasks for its Workspace at its stage waits in
-- the phase AwaitingTasks until each task has answered (or timed out); the results are kept with the run.
ALTER TABLE runs DROP CONSTRAINT runs_phase_check;
ALTER TABLE runs ADD CONSTRAINT runs_phase_check
  CHECK (phase IN ('AwaitingTasks', 'Pending', 'Running', 'Succeeded', 'Failed', 'Cancelled'));

-- One result per task and stage of a run, recorded in the statement that records the run (or, for an apply, the
-- approval that makes it). `status` moves pending -> running -> passed | failed as the task's callbacks say, or to
-- errored when no answer came before `deadline` (RUN_TASK_TIMEOUT after the run reached the stage). The callback's
-- token is kept as its SHA-256 only, replaced at each request (a per-request token), and accepted until `deadline`
-- for this result alone. Removed with the run (run history retention): the table grows with the runs.
CREATE TABLE run_task_results (
  id              uuid        PRIMARY KEY,
  run_id          uuid        NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  task            text        NOT NULL CHECK (task <> ''),
  stage           text        NOT NULL CHECK (stage IN ('pre_plan', 'pre_apply')),
  enforcement     text        NOT NULL CHECK (enforcement IN ('advisory', 'mandatory')),
  status          text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'passed', 'failed', 'errored')),
  message         text        NOT NULL DEFAULT '',
  url             text,
  outcomes        jsonb       NOT NULL DEFAULT '[]',
  token_sha256    bytea       UNIQUE,
  deadline        timestamptz NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at      timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  overridden_by   text,
  override_reason text,
  overridden_at   timestamptz,
  UNIQUE (run_id, task, stage)
);

-- Results still waiting, by deadline: what the gate's sweep times out.
CREATE INDEX run_task_results_waiting ON run_task_results (deadline) WHERE status IN ('pending', 'running');
