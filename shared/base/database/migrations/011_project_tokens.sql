-- Project tokens (issue 46, docs/tokens.md): the cluster holds the credential (a ServiceAccount, its
-- RoleBinding and a bound TokenRequest); this table keeps only what the list shows. Never the token.
CREATE TABLE project_tokens (
  project        text        NOT NULL,
  name           text        NOT NULL,
  -- The uid of the ServiceAccount the token is bound to: deleting it ends the token.
  bound_uid      text        NOT NULL,
  description    text        NOT NULL DEFAULT '',
  -- `Role/<name>` or `ClusterRole/<name>`, bound in the Project's namespace.
  role           text        NOT NULL,
  creator        text        NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz NOT NULL,
  last_used_at   timestamptz,
  last_used_from text,
  revoked_at     timestamptz
);

-- One live token per name in a Project; revoked rows stay (until the retention) beside a new one.
CREATE UNIQUE INDEX project_tokens_live_name ON project_tokens (project, name) WHERE revoked_at IS NULL;
-- The retention's delete reads ended rows by when they ended.
CREATE INDEX project_tokens_ended ON project_tokens (coalesce(revoked_at, expires_at));
