-- A plan is applied only to the Workspace object and spec it was planned for (issue 45, item 1): a plan run records
-- the Workspace's uid and generation and the VariableSets it referred to (uid, resourceVersion, and their Secret's
-- resourceVersion), as JSON ({"workspace": {...}, "variableSets": [...]}; shared/approvals/plan-binding.ts).
-- Approving the plan for apply compares it with the Workspace as it is then: another object, spec or VariableSet
-- is 409 `PlanWorkspaceChanged`. Runs recorded before have none (NULL), and their plans are refused the same way.
ALTER TABLE runs ADD COLUMN planned_for jsonb;

-- Only plan runs are bound to a Workspace this way. NOT VALID: the existing rows (all NULL) are not scanned.
ALTER TABLE runs ADD CONSTRAINT runs_planned_for_only_on_plan CHECK (planned_for IS NULL OR type = 'plan') NOT VALID;
