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
