-- A lease is bound to the principal that claimed it (issue 20): another principal presenting the lease id,
-- the admin included, is refused as if the id were unknown. `lease_holder` is `<principal type>:<principal name>`,
-- so an OIDC user named like another principal's name is still someone else. Never shown on a public route.
ALTER TABLE runs ADD COLUMN lease_holder text;

-- Leases taken before this migration: their holder is the recorded controller, whose type its form tells
-- (the run principal rules: `admin` only for the admin, `system:serviceaccount:…` only for ServiceAccounts).
UPDATE runs SET lease_holder = CASE
    WHEN controller = 'admin' THEN 'admin:admin'
    WHEN controller LIKE 'system:serviceaccount:%' THEN 'serviceaccount:' || controller
    ELSE 'oidc:' || controller END
  WHERE lease_id IS NOT NULL AND controller IS NOT NULL;
