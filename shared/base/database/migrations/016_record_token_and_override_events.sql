-- Issue 47, item 1: the events that do not report a run's phase, recorded like the run events of migrations 012
-- and 015: by a trigger in the transaction of the write that makes the change, so no path can forget its event
-- (docs/notifications.md, "Events"). No new table: the events are rows of `outbox_events` (its retention and cost
-- per row hold for them).

-- A Project token created or revoked (issue 46, `project_tokens`). Subject `tokens/<project>/<name>`: a token's
-- creation is delivered before its revocation (a name reused after a revocation continues the same line). The data
-- is what the token list shows (never the token, which is in no row); who revoked it is in the request's audit event.
CREATE FUNCTION record_token_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO outbox_events (id, type, subject, scope, data, trace_parent)
  VALUES (
    gen_random_uuid(),
    CASE WHEN TG_OP = 'INSERT' THEN 'token.created' ELSE 'token.revoked' END,
    'tokens/' || NEW.project || '/' || NEW.name,
    NEW.project,
    jsonb_build_object(
      'project', NEW.project, 'name', NEW.name, 'description', NEW.description, 'role', NEW.role,
      'creator', NEW.creator, 'createdAt', NEW.created_at, 'expiresAt', NEW.expires_at, 'revokedAt', NEW.revoked_at
    ),
    statement_trace_parent()
  );
  RETURN NULL;
END
$$;

CREATE TRIGGER project_tokens_record_creation AFTER INSERT ON project_tokens
  FOR EACH ROW EXECUTE FUNCTION record_token_event();
CREATE TRIGGER project_tokens_record_revocation AFTER UPDATE OF revoked_at ON project_tokens
  FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL) EXECUTE FUNCTION record_token_event();

-- An override used (issue 45, item 5): an apply run that carries an override (migration 014) was let through a
-- closed approval window or a freeze. Recorded once, when the run gets it (its creation, or the approval that
-- sets it), on the run's own subject so it is in order with the run's phase events. Its own trigger, so the run
-- events' function (migration 015) stays as it is.
CREATE FUNCTION record_override_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO outbox_events (id, type, subject, scope, data, trace_parent)
  VALUES (
    gen_random_uuid(),
    'run.override_used',
    'runs/' || NEW.id,
    NEW.project,
    jsonb_build_object(
      'id', NEW.id, 'project', NEW.project, 'workspace', NEW.workspace, 'type', NEW.type,
      'phase', NEW.phase, 'principal', NEW.principal, 'message', NEW.message,
      'statusMessage', NEW.status_message, 'attempts', NEW.attempts, 'planRun', NEW.plan_run,
      'override', NEW.override,
      'createdAt', NEW.created_at, 'startedAt', NEW.started_at, 'finishedAt', NEW.finished_at
    ),
    statement_trace_parent()
  );
  RETURN NULL;
END
$$;

-- After the run's own `run.created` (triggers of one event fire in name order: `runs_record_creation` first).
CREATE TRIGGER runs_record_override_on_creation AFTER INSERT ON runs
  FOR EACH ROW WHEN (NEW.override IS NOT NULL) EXECUTE FUNCTION record_override_event();
CREATE TRIGGER runs_record_override_set AFTER UPDATE OF override ON runs
  FOR EACH ROW WHEN (OLD.override IS NULL AND NEW.override IS NOT NULL) EXECUTE FUNCTION record_override_event();
