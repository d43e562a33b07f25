-- Log notifications carry the appended lines when they fit in one (PostgreSQL refuses payloads of
-- 8000 bytes or more), so a listening process hands them to its streams without reading them back.
-- Otherwise the payload stays {"runId", "lastSeq"} and listeners read the lines.
CREATE OR REPLACE FUNCTION notify_run_log_lines() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  batch record;
  payload text;
BEGIN
  FOR batch IN
    SELECT run_id, min(seq) AS first_seq, max(seq) AS last_seq, sum(octet_length(line)) AS line_bytes
    FROM appended GROUP BY run_id
  LOOP
    payload := NULL;
    -- Lines that cannot fit are not serialised at all: a large append costs no JSON it would discard.
    IF batch.line_bytes < 7000 THEN
      SELECT json_build_object('runId', batch.run_id, 'firstSeq', batch.first_seq, 'lastSeq', batch.last_seq,
                               'lines', json_agg(line ORDER BY seq))::text
        INTO payload FROM appended WHERE run_id = batch.run_id;
      IF octet_length(payload) >= 8000 THEN
        payload := NULL;
      END IF;
    END IF;
    PERFORM pg_notify('run_log_lines',
      coalesce(payload, json_build_object('runId', batch.run_id, 'lastSeq', batch.last_seq)::text));
  END LOOP;
  RETURN NULL;
END
$$;
