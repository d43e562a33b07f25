-- Issue 47, item 1: the events of what lives in the cluster, not in this database (Rollout stages, a Project's
-- approval windows and freeze). No transaction spans their change and its event, so a reconciler run by every
-- outbound sweep (shared/domain/cluster-events/) compares what the cluster shows with the state recorded here and,
-- for each change, writes the outbox event and the new state in one transaction (docs/notifications.md, "Rollout
-- and window events"). Rows of deleted Rollouts and Projects, and of stages and windows no longer declared, are
-- removed by the reconciler itself.

-- The last state seen of one stage (by its Workspace) of one Rollout (by its uid: a Rollout deleted and made
-- again under its name is another). `transitions` counts the changes recorded: it is part of each event's id, so
-- an approval withdrawn and given again is a new event, while two sweepers racing make the same one.
CREATE TABLE rollout_stage_states (
  rollout_uid text NOT NULL,
  stage text NOT NULL,
  project text NOT NULL,
  rollout text NOT NULL,
  revision text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'awaiting', 'approved', 'promoted', 'failed')),
  transitions integer NOT NULL DEFAULT 0,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (rollout_uid, stage)
);

-- The last state seen of one gate of a Project's approval policy: a window (`window:<name>`) open or shut, with
-- the opening it was last seen in (its events' ids name it), or the freeze (`freeze`) active or not.
CREATE TABLE approval_gate_states (
  project_uid text NOT NULL,
  gate text NOT NULL,
  project text NOT NULL,
  open boolean NOT NULL,
  opening_start timestamptz,
  opening_end timestamptz,
  transitions integer NOT NULL DEFAULT 0,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_uid, gate)
);
