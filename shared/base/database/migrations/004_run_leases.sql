-- The workspace controller's protocol (docs/run-history.md, "Leases"): a claimed run carries a
-- lease that its holder renews; the user's message and the controller's status message are kept apart.
ALTER TABLE runs
  -- What the controller last said about the run; `message` stays the user's, from the start of the run.
  ADD COLUMN status_message      text        NOT NULL DEFAULT '',
  -- Claims so far; a lease that lapses after the last allowed attempt fails the run.
  ADD COLUMN attempts            integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  -- The current (or, once final, the last) lease; kept after the run ends so a retried final call is recognised.
  ADD COLUMN lease_id            uuid,
  ADD COLUMN lease_expires_at    timestamptz,
  -- The ServiceAccount (principal name) of the controller that claimed the run last.
  ADD COLUMN controller          text,
  ADD COLUMN cancel_requested_at timestamptz,
  ADD COLUMN cancel_requested_by text;

-- Leases that lapse are collected by the next claim: only running runs, by expiry.
CREATE INDEX runs_running_by_lease_expiry ON runs (lease_expires_at) WHERE phase = 'Running';
