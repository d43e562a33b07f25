-- Apply what was reviewed (issue 37): an apply run started by approving a succeeded plan run records that plan
-- (`planRun` of the run, handed to the controller on claim); other runs have none. No foreign key on purpose:
-- run retention may delete the plan run, and `ON DELETE SET NULL` would then turn the apply into one that looks
-- started without a plan, so the id stays as recorded (a controller that cannot find the plan fails the apply).
ALTER TABLE runs ADD COLUMN plan_run uuid;

-- Only apply runs are bound to a plan. NOT VALID: the existing rows (all NULL) are not scanned; new ones are checked.
ALTER TABLE runs ADD CONSTRAINT runs_plan_run_only_on_apply CHECK (plan_run IS NULL OR type = 'apply') NOT VALID;
