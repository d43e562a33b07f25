-- The workspace controller's work queue: unfinished runs in one phase, oldest first, by keyset.
-- Partial, so it stays as small as the queue however long the history grows.
CREATE INDEX runs_unfinished_oldest_first ON runs (phase, created_at, id) WHERE phase IN ('Pending', 'Running');
