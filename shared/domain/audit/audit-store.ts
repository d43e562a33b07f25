import type { Database } from '../../base/database/database.ts';
import { isCanonicalTimestamp, PROCESS_PAGE_TOKENS, type PageTokens } from '../../base/database/page-tokens.ts';
import type { AuditEvent } from './audit-event.ts';

/** The filters of `GET /api/v1alpha1/audit/events`, each optional; `limit` and `continue` page. */
export interface AuditQuery {
  /** Events at or after this time (the stage's timestamp). */
  since?: Date;
  /** Events before this time. */
  until?: Date;
  user?: string;
  verb?: string;
  resource?: string;
  namespace?: string;
  name?: string;
  /** A run's id (`objectRef.uid`). */
  run?: string;
  /** `success` (below 400), `failure` (400 and above) or `refused` (401, 403, 429). */
  outcome?: 'success' | 'failure' | 'refused';
  limit: number;
  continue?: string;
}

export interface AuditPage {
  items: AuditEvent[];
  /** Present when more may follow: pass it as `continue` for the next page. */
  continue?: string;
}

const DAY_MS = 86_400_000;
const PARTITION = /^audit_events_(\d{4})(\d{2})(\d{2})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// A position: the event's stage time (microseconds, as listed) and its `seq` (a bigint).
const POSITION_FIELDS = [isCanonicalTimestamp, (seq: string) => /^\d{1,18}$/.test(seq)];
// PostgreSQL refuses U+0000 in text and jsonb; an event must never be lost to one (an OIDC claim may
// hold it). In JSON a NUL is `\u0000` after an even number of backslashes; after an odd number it is
// the text `\u0000` (a backslash escaped), which is kept as it is.
const ESCAPED_NUL = /(?<!\\)((?:\\\\)*)\\u0000/g;

/**
 * The audit trail in PostgreSQL (migration 006): append-only rows in day partitions, created here
 * before the rows that need them, and dropped whole once older than the retention.
 */
/** Statements only: the store needs no transaction (a test runs it on one client's open transaction). */
type Queryable = Pick<Database, 'query'>;

/** An event as the recorder serialised it, with the time it is stored under. */
export interface SerialisedAuditEvent {
  stageTimestamp: string;
  json: string;
}

export class AuditStore {
  readonly #database: Queryable;
  readonly #pageTokens: PageTokens;
  /** Days whose partition is known to exist, so only a new day costs a statement. */
  readonly #days = new Set<string>();

  /** `pageTokens` sign the list's `continue` tokens: a server's are keyed from the signing key every replica shares. */
  constructor(database: Queryable, pageTokens: PageTokens = PROCESS_PAGE_TOKENS) {
    this.#database = database;
    this.#pageTokens = pageTokens;
  }

  /** Writes the events in one statement, after making sure their days have partitions. */
  insert(events: readonly AuditEvent[]): Promise<void> {
    return this.insertSerialised(
      events.map((event) => ({ stageTimestamp: event.stageTimestamp, json: JSON.stringify(event) })),
    );
  }

  /**
   * `insert` for events the caller has serialised already (the recorder serialises each event
   * once), each with its `stageTimestamp`, the day it is stored under.
   */
  async insertSerialised(events: readonly SerialisedAuditEvent[]): Promise<void> {
    if (events.length === 0) return;
    for (const day of new Set(events.map((event) => dayOf(event.stageTimestamp)))) await this.#ensurePartition(day);
    const json = events.map((event) => event.json);
    // One parameter, the events' JSON as the sinks already serialised it; PostgreSQL takes the
    // filtered columns out of it, which costs this process nothing per field.
    const joined = `[${json.join(',')}]`;
    // The search is only paid for a batch that holds the escape at all (almost none do).
    const batch = joined.includes('\\u0000') ? joined.replace(ESCAPED_NUL, '$1\\ufffd') : joined;
    await this.#database.query(
      `INSERT INTO audit_events (audit_id, stage, received_at, stage_at, username, verb, resource, namespace, name, run_id, code, event)
       SELECT (e->>'auditID')::uuid, e->>'stage', (e->>'requestReceivedTimestamp')::timestamptz,
              (e->>'stageTimestamp')::timestamptz, e->'user'->>'username', e->>'verb',
              e->'objectRef'->>'resource', e->'objectRef'->>'namespace', e->'objectRef'->>'name',
              CASE WHEN e->'objectRef'->>'uid' ~ '${UUID.source}' THEN (e->'objectRef'->>'uid')::uuid END,
              COALESCE((e->'responseStatus'->>'code')::integer, 0), e
         FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS events(e, position)
        ORDER BY position`,
      [batch],
    );
  }

  /** One page of events, oldest first, matching every filter given; `signal`: the request's deadline (Database.query). */
  async list(query: AuditQuery, signal?: AbortSignal): Promise<AuditPage> {
    const conditions: string[] = [];
    const values: unknown[] = [];
    const where = (condition: (placeholder: string) => string, value: unknown) => {
      values.push(value);
      conditions.push(condition(`$${values.length}`));
    };
    if (query.since) where((p) => `stage_at >= ${p}`, query.since);
    if (query.until) where((p) => `stage_at < ${p}`, query.until);
    if (query.user !== undefined) where((p) => `username = ${p}`, query.user);
    if (query.verb !== undefined) where((p) => `verb = ${p}`, query.verb);
    if (query.resource !== undefined) where((p) => `resource = ${p}`, query.resource);
    if (query.namespace !== undefined) where((p) => `namespace = ${p}`, query.namespace);
    if (query.name !== undefined) where((p) => `name = ${p}`, query.name);
    if (query.run !== undefined) where((p) => `run_id = ${p}`, query.run);
    if (query.outcome === 'success') conditions.push('code < 400');
    if (query.outcome === 'failure') conditions.push('code >= 400');
    if (query.outcome === 'refused') conditions.push('code IN (401, 403, 429)');
    // A token names a position in the list of these filters only; `limit` may change between pages.
    const scope = [
      'audit-events',
      query.since?.toISOString() ?? null,
      query.until?.toISOString() ?? null,
      query.user ?? null,
      query.verb ?? null,
      query.resource ?? null,
      query.namespace ?? null,
      query.name ?? null,
      query.run ?? null,
      query.outcome ?? null,
    ];
    if (query.continue !== undefined) {
      const [stageAt, seq] = this.#pageTokens.read(scope, query.continue, POSITION_FIELDS);
      values.push(stageAt, seq);
      conditions.push(`(stage_at, seq) > ($${values.length - 1}::timestamptz, $${values.length}::bigint)`);
    }
    values.push(query.limit + 1);
    const text = `SELECT event, to_char(stage_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS stage_at, seq
         FROM audit_events ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''}
        ORDER BY stage_at, seq LIMIT $${values.length}`;
    type Row = { event: AuditEvent; stage_at: string; seq: string };
    const { rows } = await this.#database.query<Row>(text, values, signal ? { signal } : {});
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: page.map((row) => row.event),
      ...(rows.length > query.limit && last
        ? { continue: this.#pageTokens.issue(scope, [last.stage_at, last.seq]) }
        : {}),
    };
  }

  /**
   * Drops the day partitions that ended before `olderThan`: detached CONCURRENTLY (writers keep
   * writing to today's), then dropped. Returns the partitions dropped.
   */
  async dropDaysBefore(olderThan: Date): Promise<string[]> {
    checkDropCutoff(olderThan, Date.now());
    const { rows } = await this.#database.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'audit_events'::regclass`,
    );
    const dropped: string[] = [];
    for (const { name } of rows) {
      const match = PARTITION.exec(name);
      if (!match) continue;
      const dayEnd = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) + DAY_MS;
      if (dayEnd > olderThan.getTime()) continue;
      await this.#detach(name);
      await this.#database.query(`DROP TABLE IF EXISTS ${name}`);
      this.#days.delete(name.slice('audit_events_'.length));
      dropped.push(name);
    }
    return dropped;
  }

  async #detach(partition: string): Promise<void> {
    try {
      await this.#database.query(`ALTER TABLE audit_events DETACH PARTITION ${partition} CONCURRENTLY`);
    } catch (error) {
      // A detach interrupted earlier (another replica, a restart) is finished, not started again.
      if (!/pending/i.test((error as Error).message)) throw error;
      await this.#database.query(`ALTER TABLE audit_events DETACH PARTITION ${partition} FINALIZE`);
    }
  }

  async #ensurePartition(day: string): Promise<void> {
    if (this.#days.has(day)) return;
    const from = `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}T00:00:00Z`;
    const to = new Date(Date.parse(from) + DAY_MS).toISOString();
    try {
      await this.#database.query(
        `CREATE TABLE IF NOT EXISTS audit_events_${day} PARTITION OF audit_events FOR VALUES FROM ('${from}') TO ('${to}')`,
      );
    } catch (error) {
      // Another replica created it at the same moment: the partition exists, which is all that is needed.
      const code = (error as { code?: string }).code;
      if (code !== '42P07' && code !== '23505') throw error;
    }
    this.#days.add(day);
  }
}

/** `YYYYMMDD` of a timestamp, in UTC: the day partition its row goes to. */
function dayOf(timestamp: string): string {
  return timestamp.slice(0, 10).replaceAll('-', '');
}

/**
 * Refuses a cut-off that is not a date, or one later than the start of today (UTC), before any
 * partition is looked at: an invalid date compares false with every day's end, which would drop
 * them all, and a later cut-off would drop today's partition, where every replica is writing.
 */
export function checkDropCutoff(olderThan: Date, nowMs: number): void {
  const startOfToday = Math.floor(nowMs / DAY_MS) * DAY_MS;
  if (!Number.isFinite(olderThan.getTime()) || olderThan.getTime() > startOfToday)
    throw new RangeError(
      `refusing to drop audit partitions before ${Number.isFinite(olderThan.getTime()) ? olderThan.toISOString() : 'an invalid date'}: the cut-off must be a date no later than the start of today (UTC)`,
    );
}
