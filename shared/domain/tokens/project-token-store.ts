import type { Database } from '../../base/database/database.ts';
import type { ProjectTokenRecord } from '../../contract/rules/project-token-record.ts';

export type { ProjectTokenRecord };

/** A new token's row: the uid is the bound ServiceAccount's. */
export interface NewProjectToken {
  project: string;
  name: string;
  boundUid: string;
  description: string;
  role: string;
  creator: string;
  expiresAt: Date;
}

/** The channel a revocation is announced on, with the revoked ServiceAccount's user name as payload. */
export const TOKEN_REVOKED_CHANNEL = 'project_token_revoked';

/**
 * How long a revoked or expired token's row stays listed as ended before it is deleted: long enough to
 * answer "what was that token" after an incident, short enough that the table stays the size of the
 * live tokens (docs/tokens.md, "Capacity").
 */
export const ENDED_TOKEN_RETENTION = '30 days';

/** How often at most a token's last use is written: the hot path reads the cache, not the table. */
export const LAST_USE_INTERVAL = '1 minute';

const COLUMNS = `name, description, role, creator, created_at, expires_at, last_used_at, last_used_from`;

/** The Project tokens' rows in PostgreSQL: what the list shows, their last use and their revocation. */
export class ProjectTokenStore {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  /** Records a new token; false when a live token of that name exists in the Project. */
  async insert(token: NewProjectToken): Promise<ProjectTokenRecord | undefined> {
    const rows = await this.#query(
      `INSERT INTO project_tokens (project, name, bound_uid, description, role, creator, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (project, name) WHERE revoked_at IS NULL DO NOTHING
       RETURNING ${COLUMNS}`,
      [token.project, token.name, token.boundUid, token.description, token.role, token.creator, token.expiresAt],
    );
    return rows[0];
  }

  /** The Project's unrevoked tokens (expired ones too, until the retention), by name; ended rows past the retention are deleted first. */
  async list(project: string): Promise<ProjectTokenRecord[]> {
    await this.#query(`DELETE FROM project_tokens WHERE coalesce(revoked_at, expires_at) < now() - $1::interval`, [
      ENDED_TOKEN_RETENTION,
    ]);
    return this.#query(
      `SELECT ${COLUMNS} FROM project_tokens WHERE project = $1 AND revoked_at IS NULL ORDER BY name`,
      [project],
    );
  }

  /**
   * Revokes the live token: marks it, ends it in the cluster (`endInCluster`) while the row is locked,
   * and announces it on TOKEN_REVOKED_CHANNEL with the commit, so every instance listening drops it from
   * its caches only once TokenReview refuses it (a cache refilled before that would trust it again).
   * False, with nothing ended, when there was no live token of that name.
   */
  async revoke(project: string, name: string, user: string, endInCluster: () => Promise<void>): Promise<boolean> {
    return this.#database.transaction(async (query) => {
      const revoked = await query(
        `UPDATE project_tokens SET revoked_at = now() WHERE project = $1 AND name = $2 AND revoked_at IS NULL RETURNING name`,
        [project, name],
      );
      if (revoked.rowCount === 0) return false;
      await endInCluster();
      await query('SELECT pg_notify($1, $2)', [TOKEN_REVOKED_CHANNEL, user]);
      return true;
    });
  }

  /** The role (`Role/<name>` or `ClusterRole/<name>`) of the Project's live token `name`; undefined when there is none. */
  async liveRole(project: string, name: string): Promise<string | undefined> {
    const result = await this.#database.query(
      'SELECT role FROM project_tokens WHERE project = $1 AND name = $2 AND revoked_at IS NULL',
      [project, name],
    );
    return result.rows[0]?.role as string | undefined;
  }

  /** Records a use: written only when the last one recorded is older than LAST_USE_INTERVAL. */
  async recordUse(project: string, name: string, from: string): Promise<void> {
    await this.#query(
      `UPDATE project_tokens SET last_used_at = now(), last_used_from = $3
       WHERE project = $1 AND name = $2 AND revoked_at IS NULL
         AND (last_used_at IS NULL OR last_used_at < now() - $4::interval)`,
      [project, name, from, LAST_USE_INTERVAL],
    );
  }

  async #query(text: string, values: unknown[]): Promise<ProjectTokenRecord[]> {
    const result = await this.#database.query(text, values);
    return result.rows.map(toRecord);
  }
}

function toRecord(row: Record<string, unknown>): ProjectTokenRecord {
  const time = (value: unknown) => (value instanceof Date ? value.toISOString() : null);
  return {
    name: row.name as string,
    description: row.description as string,
    role: row.role as string,
    creator: row.creator as string,
    createdAt: time(row.created_at)!,
    expiresAt: time(row.expires_at)!,
    lastUsedAt: time(row.last_used_at),
    lastUsedFrom: (row.last_used_from as string | null) ?? null,
  };
}
