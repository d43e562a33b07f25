-- Run tasks after the plan (issue 48, item 1, HCP Terraform's post_plan stage; docs/run-tasks.md): a RunTask at
-- post_plan is asked once a plan run has Succeeded. Its result is recorded `pending` in the statement that records
-- the controller's report of success, and the plan, which stays Succeeded, may not be approved for apply until the
-- result is final (nor after a mandatory failure, unless overridden). Same table, same retention (removed with the
-- run), one more row per post_plan task per succeeded plan.
ALTER TABLE run_task_results DROP CONSTRAINT run_task_results_stage_check;
ALTER TABLE run_task_results ADD CONSTRAINT run_task_results_stage_check
  CHECK (stage IN ('pre_plan', 'post_plan', 'pre_apply'));
