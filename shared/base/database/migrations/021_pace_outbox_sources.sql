-- Issue 47: when each source of cluster events (shared/domain/cluster-events/: the reconciler that lists every
-- Project and Rollout) last ran, across every instance. Every sweep of every instance asks it first, and only the
-- one that moves `passed_at` on runs the source, at most once per OUTBOUND_SOURCE_INTERVAL for the whole fleet:
-- the cluster sees two list calls per interval however many instances sweep. One row per source: it does not grow.
CREATE TABLE outbox_source_passes (
  source text PRIMARY KEY,
  passed_at timestamptz NOT NULL
);
