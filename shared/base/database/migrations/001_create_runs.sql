-- Run history: one row per plan/apply run of a Workspace.
CREATE TABLE runs (
  id             uuid        PRIMARY KEY,
  project        text        NOT NULL CHECK (project <> ''),
  workspace      text        NOT NULL CHECK (workspace <> ''),
  type           text        NOT NULL CHECK (type IN ('plan', 'apply')),
  phase          text        NOT NULL CHECK (phase IN ('Pending', 'Running', 'Succeeded', 'Failed', 'Cancelled')),
  principal      text        NOT NULL CHECK (principal <> ''),
  principal_type text        NOT NULL CHECK (principal_type IN ('admin', 'oidc', 'serviceaccount')),
  -- Millisecond precision, so that the ISO strings clients see (and continue tokens carry) are exact.
  created_at     timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  started_at     timestamptz,
  finished_at    timestamptz,
  message        text        NOT NULL DEFAULT '',
  -- Highest log line sequence number handed out; the row lock on update serialises appenders.
  last_log_seq   bigint      NOT NULL DEFAULT 0
);

-- Keyset pagination, newest first, in a Workspace and in a whole Project.
CREATE INDEX runs_by_workspace_newest_first ON runs (project, workspace, created_at DESC, id DESC);
CREATE INDEX runs_by_project_newest_first ON runs (project, created_at DESC, id DESC);

CREATE TABLE run_log_lines (
  run_id     uuid        NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq        bigint      NOT NULL CHECK (seq > 0),
  line       text        NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, seq)
);

-- Every insert of log lines wakes the listeners of channel run_log_lines, once per run, on commit.
CREATE FUNCTION notify_run_log_lines() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('run_log_lines', json_build_object('runId', run_id, 'lastSeq', max(seq))::text)
    FROM appended GROUP BY run_id;
  RETURN NULL;
END
$$;

CREATE TRIGGER run_log_lines_notify
  AFTER INSERT ON run_log_lines
  REFERENCING NEW TABLE AS appended
  FOR EACH STATEMENT EXECUTE FUNCTION notify_run_log_lines();
