-- Issue 47's remainders on the outbox of migration 012 (which shipped first and is not changed: its
-- checksum is recorded wherever it ran).

-- `trace_parent` is the W3C trace context of the statement that made the change, when it was traced: its
-- deliveries are spans of that trace (docs/notifications.md, "Metrics and traces").
ALTER TABLE outbox_events ADD COLUMN trace_parent text;

-- What a succeeded plan found ("plan finished with changes or none"): true when it proposes changes, false
-- when there is nothing to apply, null when the controller did not say (an apply, an older controller). The
-- controller reports it with the phase (`hasChanges`), in the same statement.
ALTER TABLE runs ADD COLUMN plan_has_changes boolean;

-- The trace context comes from the statement's own text: a traced server appends it as a comment
-- (`traceparent='00-…'` in a trailing block comment, shared/base/database/traced-database-client.ts); only
-- that exact shape is read.
CREATE FUNCTION statement_trace_parent() RETURNS text LANGUAGE sql STABLE AS $$
  SELECT substring(current_query() FROM '/\*traceparent=''(00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2})''\*/')
$$;

-- The run's event as migration 012 records it, with the plan's finding in its data and the trace context
-- beside it; the triggers of 012 call this function and stay as they are.
CREATE OR REPLACE FUNCTION record_run_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO outbox_events (id, type, subject, scope, data, trace_parent)
  VALUES (
    gen_random_uuid(),
    CASE WHEN TG_OP = 'INSERT' THEN 'run.created' ELSE 'run.' || lower(NEW.phase) END,
    'runs/' || NEW.id,
    NEW.project,
    jsonb_build_object(
      'id', NEW.id, 'project', NEW.project, 'workspace', NEW.workspace, 'type', NEW.type,
      'phase', NEW.phase, 'principal', NEW.principal, 'message', NEW.message,
      'statusMessage', NEW.status_message, 'attempts', NEW.attempts, 'planRun', NEW.plan_run,
      'planHasChanges', NEW.plan_has_changes,
      'createdAt', NEW.created_at, 'startedAt', NEW.started_at, 'finishedAt', NEW.finished_at
    ),
    statement_trace_parent()
  );
  RETURN NULL;
END
$$;
