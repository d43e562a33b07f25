-- Approvals of a plan for apply (issue 45, item 2; docs/resources.md "Approving a plan for apply"): one row per
-- plan run and approver, recorded in the transaction that holds the plan's row lock (PlanApprovals.approveForApply).
-- The apply run starts when the rows meet the Project's policy for the Workspace's applies (count distinct approvers,
-- one from each required group, none the plan's author under four eyes): the rule is the stages' one
-- (approvalsStillNeeded). The primary key makes a second approval by the same approver a conflict on every
-- instance (409 AlreadyApproved): the database decides. `groups`: the approver's groups when it approved (OIDC
-- groups with their prefix, or a ServiceAccount's), so a required group is judged as it was then. A withdrawal
-- deletes its row, refused once the apply run exists. Removed with the plan run (run history retention): the table
-- grows with the plans that were approved.
CREATE TABLE plan_approvals (
  plan_run    uuid        NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  approved_by text        NOT NULL CHECK (approved_by <> ''),
  approved_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  groups      text[]      NOT NULL DEFAULT '{}',
  PRIMARY KEY (plan_run, approved_by)
);
