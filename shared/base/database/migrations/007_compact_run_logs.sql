-- Issue 35: run history that lasts. A finished run's log moves from one row per line into compressed
-- blocks of consecutive lines (docs/run-history.md, "Compaction"); retention removes old logs, and old
-- runs with them. Nothing here is touched by the append of a live run: it inserts into run_log_lines
-- and updates runs.last_log_seq, which no index references, so that update stays a HOT update.

CREATE TABLE run_log_blocks (
  run_id    uuid   NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  -- Lines first_seq..last_seq of the run, every one of them: a run's blocks never overlap, and the
  -- lines after its last block (if any) are rows of run_log_lines.
  first_seq bigint NOT NULL CHECK (first_seq > 0),
  last_seq  bigint NOT NULL,
  -- How `body` is compressed; the text inside is the lines joined by NUL (which no text value holds).
  encoding  text   NOT NULL CHECK (encoding IN ('zstd', 'gzip', 'br')),
  body      bytea  NOT NULL,
  PRIMARY KEY (run_id, first_seq),
  CHECK (last_seq >= first_seq)
);
-- The body is compressed already: stored out of line as it is, with no second (pglz) attempt.
ALTER TABLE run_log_blocks ALTER COLUMN body SET STORAGE EXTERNAL;

-- RUN_LOG_RETENTION removed the run's log (the run itself stays); NULL while the log is kept.
-- No default: adding the column rewrites nothing.
ALTER TABLE runs ADD COLUMN log_removed_at timestamptz;

-- Retention walks finished runs oldest first, in small batches: the whole history
-- (RUN_HISTORY_RETENTION), and the runs whose log is still kept (RUN_LOG_RETENTION). finished_at
-- is set once, when the run ends; neither index changes while a run is live.
CREATE INDEX runs_finished_oldest_first ON runs (finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX runs_finished_with_log_oldest_first ON runs (finished_at)
  WHERE finished_at IS NOT NULL AND log_removed_at IS NULL;

-- A page of a run's log wherever its lines are (shared/runs/run-log-pages.ts reads it): the run's own
-- row (seq 0: when its log was removed, in epoch milliseconds, NULL while kept; no row: no run), the
-- blocks overlapping lines after_seq + 1 .. after_seq + max_lines (seq -first_seq: "last_seq encoding",
-- and the body), then up to max_lines rows after the last block (read from there, past the index
-- entries compaction leaves behind until VACUUM). STABLE: its three queries see the snapshot of the
-- statement that calls it, so a compaction committing meanwhile is seen wholly or not at all. In
-- PL/pgSQL so that their plans are kept per connection instead of made at every page.
CREATE FUNCTION run_log_page(page_run_id uuid, after_seq bigint, max_lines integer)
RETURNS TABLE (seq bigint, line text, body bytea) LANGUAGE plpgsql STABLE AS $$
DECLARE
  compacted_through bigint;
BEGIN
  RETURN QUERY
    SELECT 0::bigint, (extract(epoch FROM runs.log_removed_at) * 1000)::bigint::text, NULL::bytea
    FROM runs WHERE runs.id = page_run_id;
  RETURN QUERY
    SELECT -blocks.first_seq, blocks.last_seq || ' ' || blocks.encoding, blocks.body
    FROM run_log_blocks blocks
    WHERE blocks.run_id = page_run_id AND blocks.last_seq > after_seq AND blocks.first_seq <= after_seq + max_lines
      AND blocks.first_seq >= coalesce(
        (SELECT max(holding.first_seq) FROM run_log_blocks holding
         WHERE holding.run_id = page_run_id AND holding.first_seq <= after_seq + 1), 1);
  SELECT last.last_seq INTO compacted_through
    FROM run_log_blocks last WHERE last.run_id = page_run_id ORDER BY last.first_seq DESC LIMIT 1;
  RETURN QUERY
    SELECT rows.seq, rows.line, NULL::bytea
    FROM run_log_lines rows
    WHERE rows.run_id = page_run_id AND rows.seq > greatest(after_seq, coalesce(compacted_through, 0))
    ORDER BY rows.seq LIMIT max_lines;
END
$$;
