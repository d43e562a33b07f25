-- An override is recorded on the run it let through (issue 45, item 5): an apply run started, or approved from a
-- plan, while the Project's approval windows or freeze refused it, by an incident commander with the `override`
-- verb, records `{"by": <principal>, "reason": <the caller's reason>, "overrode": <the refusal's reason>}`
-- (shared/domain/runs/run.ts, RunOverride). Every other run has none (NULL, no bytes in the row). The audit event of
-- the same request has the reason and both principals (docs/resources.md "Windows, freezes and overrides").
ALTER TABLE runs ADD COLUMN override jsonb;

-- Only apply runs are gated by windows and freezes. NOT VALID: the existing rows (all NULL) are not scanned.
ALTER TABLE runs ADD CONSTRAINT runs_override_only_on_apply CHECK (override IS NULL OR type = 'apply') NOT VALID;
