-- The audit trail (docs/audit.md): one row per audit event, append-only. Partitioned by day on the
-- event's time, so retention drops whole days (DETACH ... CONCURRENTLY, then DROP) without touching a
-- row or locking writers; the day partitions are created by the writer before it inserts.
CREATE SEQUENCE audit_events_seq AS bigint;

CREATE TABLE audit_events (
  -- Ties the rows of one event together in time order, and pages keyset-wise with stage_at.
  seq         bigint      NOT NULL DEFAULT nextval('audit_events_seq'),
  audit_id    uuid        NOT NULL,
  stage       text        NOT NULL,
  received_at timestamptz NOT NULL,
  stage_at    timestamptz NOT NULL,
  -- The columns the API filters on, copied out of the event.
  username    text        NOT NULL,
  verb        text        NOT NULL,
  resource    text,
  namespace   text,
  name        text,
  run_id      uuid,
  code        integer     NOT NULL,
  -- The whole audit.k8s.io/v1 Event, as written to standard output.
  event       jsonb       NOT NULL,
  PRIMARY KEY (stage_at, seq)
) PARTITION BY RANGE (stage_at);

CREATE INDEX audit_events_by_user ON audit_events (username, stage_at);
CREATE INDEX audit_events_by_object ON audit_events (namespace, resource, name, stage_at);
CREATE INDEX audit_events_by_run ON audit_events (run_id) WHERE run_id IS NOT NULL;
CREATE INDEX audit_events_by_audit_id ON audit_events (audit_id);

-- Append-only: an event, once written, is never changed or removed row by row. Retention removes
-- whole days by detaching their partition, which no row trigger sees.
CREATE FUNCTION audit_events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit events are append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER audit_events_no_update_or_delete
  BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_are_append_only();

CREATE TRIGGER audit_events_no_truncate
  BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_are_append_only();

-- The server's own role keeps INSERT and SELECT only (the owner could grant itself more back; the
-- triggers above hold either way).
REVOKE UPDATE, DELETE, TRUNCATE ON audit_events FROM CURRENT_USER;
