-- Limits that must hold across every instance (issue 36, docs/security.md): failed admin logins,
-- per client and for the account, and the streams and watches each principal holds open.

-- One row per key with a window: `account:<name>` (every client's failures together) and
-- `client:<address or IPv6 prefix>`. A row is made only when an attempt is admitted, and at most
-- the account's budget of attempts is admitted per window, so the table holds at most twice that
-- budget plus one row: the rows whose window ended are deleted when the account's next window opens.
CREATE TABLE login_failures (
  key            text        PRIMARY KEY,
  -- When the window that began with the key's first counted failure ends (milliseconds, as clients compare it).
  window_ends_at timestamptz NOT NULL,
  failures       integer     NOT NULL CHECK (failures >= 0)
);

-- Counts one login attempt as a failure before its password is compared, if neither the account
-- nor the client has spent its budget in its window; otherwise refuses it (`refused_by` says which,
-- `retry_after_ms` until that window ends). Refusals, most of an attack, only read. Admissions lock
-- the account's row first, so they are serialised and no two instances can both take its last unit.
-- `attempted_at` is the time the attempt is judged at: the database's clock unless a test gives one.
CREATE FUNCTION admit_login_attempt(
  account_key text,
  account_max integer,
  client_key  text,
  client_max  integer,
  window_length interval,
  attempted_at timestamptz DEFAULT NULL
) RETURNS TABLE (
  admitted boolean,
  refused_by text,
  retry_after_ms bigint,
  account_failures integer,
  account_window_ends_at timestamptz,
  client_failures integer,
  client_window_ends_at timestamptz
) LANGUAGE plpgsql AS $$
DECLARE
  judged_at timestamptz := date_trunc('milliseconds', coalesce(attempted_at, now()));
  fresh_end timestamptz := date_trunc('milliseconds', coalesce(attempted_at, now()) + window_length);
  account login_failures;
  client login_failures;
BEGIN
  SELECT * INTO account FROM login_failures f WHERE f.key = account_key;
  IF account.window_ends_at > judged_at AND account.failures >= account_max THEN
    RETURN QUERY SELECT false, 'account', (extract(epoch FROM account.window_ends_at - judged_at) * 1000)::bigint,
      account.failures, account.window_ends_at, NULL::integer, NULL::timestamptz;
    RETURN;
  END IF;
  SELECT * INTO client FROM login_failures f WHERE f.key = client_key;
  IF client.window_ends_at > judged_at AND client.failures >= client_max THEN
    RETURN QUERY SELECT false, 'client', (extract(epoch FROM client.window_ends_at - judged_at) * 1000)::bigint,
      account.failures, account.window_ends_at, client.failures, client.window_ends_at;
    RETURN;
  END IF;

  INSERT INTO login_failures (key, window_ends_at, failures) VALUES (account_key, fresh_end, 0)
    ON CONFLICT (key) DO NOTHING;
  SELECT * INTO account FROM login_failures f WHERE f.key = account_key FOR UPDATE;
  IF account.window_ends_at <= judged_at THEN
    account.window_ends_at := fresh_end;
    account.failures := 0;
    -- Once per window of the account: what no window holds any more goes, so the table stays small.
    DELETE FROM login_failures f WHERE f.window_ends_at <= judged_at AND f.key <> account_key;
  END IF;
  -- Under the account's lock no other admission runs, so the client's row read now stays as read.
  SELECT * INTO client FROM login_failures f WHERE f.key = client_key;
  IF account.failures >= account_max THEN
    RETURN QUERY SELECT false, 'account', (extract(epoch FROM account.window_ends_at - judged_at) * 1000)::bigint,
      account.failures, account.window_ends_at, NULL::integer, NULL::timestamptz;
    RETURN;
  END IF;
  IF client.window_ends_at > judged_at AND client.failures >= client_max THEN
    RETURN QUERY SELECT false, 'client', (extract(epoch FROM client.window_ends_at - judged_at) * 1000)::bigint,
      account.failures, account.window_ends_at, client.failures, client.window_ends_at;
    RETURN;
  END IF;
  IF client.key IS NULL OR client.window_ends_at <= judged_at THEN
    client.window_ends_at := fresh_end;
    client.failures := 0;
  END IF;
  UPDATE login_failures f SET window_ends_at = account.window_ends_at, failures = account.failures + 1
    WHERE f.key = account_key;
  INSERT INTO login_failures (key, window_ends_at, failures) VALUES (client_key, client.window_ends_at, client.failures + 1)
    ON CONFLICT (key) DO UPDATE SET window_ends_at = excluded.window_ends_at, failures = excluded.failures;
  RETURN QUERY SELECT true, NULL::text, 0::bigint, account.failures + 1, account.window_ends_at,
    client.failures + 1, client.window_ends_at;
END
$$;

-- Takes back an admitted attempt that was no failure: the account's count (and the client's) goes
-- down by one if its window is still the one that counted it; `clear_client` (a right password)
-- forgets the client's failures altogether.
CREATE FUNCTION give_back_login_attempt(
  account_key text,
  account_window_ends_at timestamptz,
  client_key text,
  client_window_ends_at timestamptz,
  clear_client boolean
) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  -- The account's row first, as admissions lock it, so a give-back and an admission never interleave.
  PERFORM 1 FROM login_failures f WHERE f.key = account_key FOR UPDATE;
  UPDATE login_failures f SET failures = f.failures - 1
    WHERE f.key = account_key AND f.window_ends_at = account_window_ends_at AND f.failures > 0;
  IF clear_client THEN
    DELETE FROM login_failures f WHERE f.key = client_key;
  ELSE
    UPDATE login_failures f SET failures = f.failures - 1
      WHERE f.key = client_key AND f.window_ends_at = client_window_ends_at AND f.failures > 0;
  END IF;
END
$$;

-- The instances holding streams or watches, each with the time it last said it was alive. Slots of
-- an instance whose heartbeat is older than the expiry do not count, and go with it when it is swept.
CREATE TABLE stream_instances (
  instance     uuid        PRIMARY KEY,
  heartbeat_at timestamptz NOT NULL
);
CREATE INDEX stream_instances_by_heartbeat ON stream_instances (heartbeat_at);

-- One row per open run-log stream (`run_log`) or resource watch (`watch`), removed when it closes.
CREATE TABLE stream_slots (
  slot      uuid        PRIMARY KEY,
  instance  uuid        NOT NULL REFERENCES stream_instances ON DELETE CASCADE,
  kind      text        NOT NULL CHECK (kind IN ('run_log', 'watch')),
  -- `<principal type>:<principal name>`, as the per-process count keys it.
  principal text        NOT NULL,
  opened_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX stream_slots_by_principal ON stream_slots (kind, principal);
CREATE INDEX stream_slots_by_instance ON stream_slots (instance);

-- Takes a slot for a principal if fewer than `max_slots` of its slots of that kind are held by live
-- instances; answers how many it holds with this one (or without, when refused). Opens of one
-- principal's streams of one kind are serialised by a transaction-scoped advisory lock, so two
-- instances cannot both take its last slot. Instances silent for longer than `expiry` are swept
-- first, and their slots with them.
CREATE FUNCTION take_stream_slot(
  slot_id uuid,
  instance_id uuid,
  slot_kind text,
  slot_principal text,
  max_slots integer,
  expiry interval
) RETURNS TABLE (taken boolean, held integer) LANGUAGE plpgsql AS $$
DECLARE
  live integer;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('stream_slots'), hashtext(slot_kind || ' ' || slot_principal));
  DELETE FROM stream_instances i WHERE i.heartbeat_at < now() - expiry AND i.instance <> instance_id;
  INSERT INTO stream_instances (instance, heartbeat_at) VALUES (instance_id, now())
    ON CONFLICT (instance) DO UPDATE SET heartbeat_at = now();
  SELECT count(*) INTO live FROM stream_slots s
    WHERE s.kind = slot_kind AND s.principal = slot_principal;
  IF live >= max_slots THEN
    RETURN QUERY SELECT false, live;
    RETURN;
  END IF;
  INSERT INTO stream_slots (slot, instance, kind, principal) VALUES (slot_id, instance_id, slot_kind, slot_principal);
  RETURN QUERY SELECT true, live + 1;
END
$$;
