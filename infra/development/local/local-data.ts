import { join } from 'node:path';

/** Where each part of the local state lives, so that they persist (and are reset) together. */
export function localDataPaths(root: string) {
  return {
    root,
    /** The embedded PostgreSQL's cluster. */
    postgres: join(root, 'postgres'),
    /** The built-in Kubernetes emulator's objects and its lock. */
    kubernetes: join(root, 'kubernetes'),
    /** The fleet's shared admin secret, one file per key (ADMIN_SECRET_SOURCE=file:...). */
    adminSecret: join(root, 'admin-secret'),
  };
}
