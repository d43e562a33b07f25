-- The outbound engine (issue 47, shared/domain/outbound/, docs/notifications.md): what the platform tells the
-- world is recorded in the same transaction as the change it reports (an outbox), then delivered at least
-- once to every receiver that wants it, each attempt logged.

-- One event per change, its id stable across every attempt and every receiver (the receivers' de-duplication
-- key). `subject` is what ordering is kept per (a run: `runs/<id>`); `scope` is the Project it belongs to.
-- `routed_at` is set once the engine has matched the event to its receivers (a delivery row each).
CREATE TABLE outbox_events (
  id uuid PRIMARY KEY,
  type text NOT NULL,
  subject text NOT NULL,
  scope text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
  routed_at timestamptz
);
CREATE INDEX outbox_events_to_route ON outbox_events (created_at, id) WHERE routed_at IS NULL;
CREATE INDEX outbox_events_by_age ON outbox_events (created_at);

-- One event for one receiver. `pending` until it is `delivered` or `failed` (given up after the maximum
-- of attempts, or the receiver is gone); a lease (holder, expiry) marks the one instance sending it now.
CREATE TABLE outbound_deliveries (
  id bigserial PRIMARY KEY,
  event_id uuid NOT NULL REFERENCES outbox_events (id) ON DELETE CASCADE,
  receiver text NOT NULL,
  subject text NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_holder text,
  lease_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX outbound_deliveries_due ON outbound_deliveries (next_attempt_at) WHERE state = 'pending';
-- The head of each (receiver, subject) line: a later event waits for the earlier one (order per subject).
CREATE INDEX outbound_deliveries_in_line ON outbound_deliveries (receiver, subject, id) WHERE state = 'pending';
CREATE INDEX outbound_deliveries_of_event ON outbound_deliveries (event_id);

-- Each attempt: when, the answer's status code (none when no answer came), how long it took, the error, and
-- the first bytes of the answer. `receiver` is repeated so a receiver's log is one index range.
CREATE TABLE outbound_attempts (
  delivery_id bigint NOT NULL REFERENCES outbound_deliveries (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  receiver text NOT NULL,
  started_at timestamptz NOT NULL,
  status_code integer,
  latency_ms integer NOT NULL,
  error text,
  answer_head text NOT NULL DEFAULT '',
  PRIMARY KEY (delivery_id, attempt)
);
CREATE INDEX outbound_attempts_of_receiver ON outbound_attempts (receiver, started_at DESC);

-- A run's creation and every change of its phase, recorded by the statement that makes it: a trigger is in
-- the transaction of every write to `runs` (a claim, a controller's phase, a lapsed lease, a cancellation,
-- an approval that creates an apply), so no path that moves a run can forget its event.
CREATE FUNCTION record_run_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO outbox_events (id, type, subject, scope, data)
  VALUES (
    gen_random_uuid(),
    CASE WHEN TG_OP = 'INSERT' THEN 'run.created' ELSE 'run.' || lower(NEW.phase) END,
    'runs/' || NEW.id,
    NEW.project,
    jsonb_build_object(
      'id', NEW.id, 'project', NEW.project, 'workspace', NEW.workspace, 'type', NEW.type,
      'phase', NEW.phase, 'principal', NEW.principal, 'message', NEW.message,
      'statusMessage', NEW.status_message, 'attempts', NEW.attempts, 'planRun', NEW.plan_run,
      'createdAt', NEW.created_at, 'startedAt', NEW.started_at, 'finishedAt', NEW.finished_at
    )
  );
  RETURN NULL;
END
$$;

CREATE TRIGGER runs_record_creation AFTER INSERT ON runs FOR EACH ROW EXECUTE FUNCTION record_run_event();
CREATE TRIGGER runs_record_phase_changes AFTER UPDATE OF phase ON runs
  FOR EACH ROW WHEN (OLD.phase IS DISTINCT FROM NEW.phase) EXECUTE FUNCTION record_run_event();
