import type { Database } from '../../base/database/database.ts';
import type { OutboxEvent } from './outbox-event.ts';
import type { DeliveryState, LoggedAttempt } from '../../contract/rules/delivery-log.ts';

export type { LoggedAttempt };

/** A delivery claimed for one attempt: its lease is this instance's until the attempt is recorded. */
export interface ClaimedDelivery {
  id: string;
  receiver: string;
  /** 1 for the first attempt. */
  attempt: number;
  event: OutboxEvent;
}

/** What an attempt came to, as the delivery log keeps it. */
export interface AttemptRecord {
  startedAt: Date;
  statusCode?: number;
  latencyMs: number;
  error?: string;
  answerHead: string;
  /** Delivered: the receiver answered 2xx. */
  delivered: boolean;
  /** Not delivered and no attempt left (or the receiver is gone): the delivery is given up. */
  givenUp: boolean;
  /** Not delivered, tried again this long from now. */
  retryInMs: number;
}

interface LoggedAttemptRow {
  delivery_id: string;
  event_id: string;
  type: string;
  subject: string;
  state: DeliveryState;
  attempt: number;
  started_at: Date;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  answer_head: string;
}

interface EventRow {
  id: string;
  type: string;
  subject: string;
  scope: string;
  data: Record<string, unknown>;
  created_at: Date;
  trace_parent: string | null;
}

interface ClaimRow extends EventRow {
  delivery_id: string;
  receiver: string;
  attempts: number;
}

const EVENT_COLUMNS = 'e.id, e.type, e.subject, e.scope, e.data, e.created_at, e.trace_parent';

/**
 * The outbox and the deliveries in PostgreSQL, shared by every instance (issue 47, item 3): each step
 * takes its rows with `FOR UPDATE SKIP LOCKED`, so instances sweeping at once split the work and none
 * sends what another holds. A claimed delivery carries a lease (holder, expiry): an instance that dies
 * mid-attempt leaves it to be claimed again once the lease has expired (at least once).
 */
export class OutboundQueue {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  /**
   * Matches up to `limit` events not yet routed, oldest first, to the receivers that want them (one
   * delivery each), in one transaction: an event is routed once, by one instance. Resolves to how many.
   */
  async route(receiversOf: (event: OutboxEvent) => Promise<readonly string[]>, limit: number): Promise<number> {
    return this.#database.transaction(async (query) => {
      const { rows } = await query<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM outbox_events e WHERE routed_at IS NULL
         ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      for (const row of rows) {
        const event = toEvent(row);
        const receivers = [...new Set(await receiversOf(event))];
        if (receivers.length > 0)
          await query(
            `INSERT INTO outbound_deliveries (event_id, receiver, subject)
             SELECT $1, receiver, $2 FROM unnest($3::text[]) AS receiver`,
            [event.id, event.subject, receivers],
          );
      }
      if (rows.length > 0)
        await query('UPDATE outbox_events SET routed_at = now() WHERE id = ANY($1::uuid[])', [
          rows.map((row) => row.id),
        ]);
      return rows.length;
    });
  }

  /**
   * Claims up to `limit` due deliveries for `holder` for `leaseMs`, counting the attempt. A delivery is due
   * when its time has come, nobody holds a live lease on it, it is the oldest pending one of its receiver
   * and subject (order per subject), and its receiver has fewer than `perReceiver` deliveries under way
   * on every instance together (one slow receiver holds only its own slots).
   */
  async claim(holder: string, leaseMs: number, limit: number, perReceiver: number): Promise<ClaimedDelivery[]> {
    const { rows } = await this.#database.query<ClaimRow>(
      `WITH busy AS (
         SELECT receiver, count(*) AS sending FROM outbound_deliveries
         WHERE state = 'pending' AND lease_expires_at > now() GROUP BY receiver
       ), due AS (
         SELECT d.id, d.receiver, d.next_attempt_at,
                row_number() OVER (PARTITION BY d.receiver ORDER BY d.next_attempt_at, d.id) AS place
         FROM outbound_deliveries d
         WHERE d.state = 'pending' AND d.next_attempt_at <= now()
           AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= now())
           AND NOT EXISTS (
             SELECT 1 FROM outbound_deliveries earlier
             WHERE earlier.state = 'pending' AND earlier.receiver = d.receiver
               AND earlier.subject = d.subject AND earlier.id < d.id)
       ), chosen AS (
         SELECT d.id FROM outbound_deliveries d
         WHERE d.id IN (
           SELECT due.id FROM due LEFT JOIN busy USING (receiver)
           WHERE due.place + coalesce(busy.sending, 0) <= $4
           ORDER BY due.next_attempt_at, due.id LIMIT $3)
           AND d.state = 'pending' AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= now())
         FOR UPDATE SKIP LOCKED
       ), leased AS (
         UPDATE outbound_deliveries d
         SET lease_holder = $1, lease_expires_at = now() + $2::float8 * interval '1 millisecond', attempts = attempts + 1
         FROM chosen WHERE d.id = chosen.id
         RETURNING d.id, d.receiver, d.attempts, d.event_id
       )
       SELECT leased.id AS delivery_id, leased.receiver, leased.attempts, ${EVENT_COLUMNS}
       FROM leased JOIN outbox_events e ON e.id = leased.event_id
       ORDER BY leased.id`,
      [holder, leaseMs, limit, perReceiver],
    );
    return rows.map((row) => ({
      id: String(row.delivery_id),
      receiver: row.receiver,
      attempt: row.attempts,
      event: toEvent(row),
    }));
  }

  /**
   * Records the attempt of `delivery` and where the delivery stands after it, if `holder` still holds its
   * lease (an attempt that outlived its lease is another instance's to record). Resolves to whether it did.
   */
  async record(delivery: ClaimedDelivery, holder: string, outcome: AttemptRecord): Promise<boolean> {
    const { rowCount } = await this.#database.query(
      `WITH updated AS (
         UPDATE outbound_deliveries SET
           state = CASE WHEN $3 THEN 'delivered' WHEN $4 THEN 'failed' ELSE 'pending' END,
           next_attempt_at = now() + $5::float8 * interval '1 millisecond',
           finished_at = CASE WHEN $3 OR $4 THEN now() END,
           lease_holder = NULL, lease_expires_at = NULL
         WHERE id = $1 AND lease_holder = $2 AND state = 'pending'
         RETURNING id, receiver, attempts
       )
       INSERT INTO outbound_attempts (delivery_id, attempt, receiver, started_at, status_code, latency_ms, error, answer_head)
       SELECT id, attempts, receiver, $6, $7, $8, $9, $10 FROM updated`,
      [
        delivery.id,
        holder,
        outcome.delivered,
        !outcome.delivered && outcome.givenUp,
        outcome.retryInMs,
        outcome.startedAt,
        outcome.statusCode ?? null,
        outcome.latencyMs,
        outcome.error ?? null,
        outcome.answerHead,
      ],
    );
    return rowCount === 1;
  }

  /** Gives the lease of `delivery` back without counting an attempt (its receiver is paused): due again in `retryInMs`. */
  async hold(delivery: ClaimedDelivery, holder: string, retryInMs: number): Promise<void> {
    await this.#database.query(
      `UPDATE outbound_deliveries SET attempts = attempts - 1, lease_holder = NULL, lease_expires_at = NULL,
         next_attempt_at = now() + $3::float8 * interval '1 millisecond'
       WHERE id = $1 AND lease_holder = $2 AND state = 'pending'`,
      [delivery.id, holder, retryInMs],
    );
  }

  /** The latest `limit` attempts of `receiver`, newest first, with their delivery's event and state. */
  async attemptsOf(receiver: string, limit: number): Promise<LoggedAttempt[]> {
    const { rows } = await this.#database.query<LoggedAttemptRow>(
      `SELECT a.delivery_id, e.id AS event_id, e.type, e.subject, d.state, a.attempt, a.started_at, a.status_code,
              a.latency_ms, a.error, a.answer_head
       FROM outbound_attempts a JOIN outbound_deliveries d ON d.id = a.delivery_id JOIN outbox_events e ON e.id = d.event_id
       WHERE a.receiver = $1 ORDER BY a.started_at DESC, a.delivery_id DESC, a.attempt DESC LIMIT $2`,
      [receiver, limit],
    );
    return rows.map((row) => ({
      delivery: String(row.delivery_id),
      event: row.event_id,
      eventType: row.type,
      subject: row.subject,
      state: row.state,
      attempt: row.attempt,
      startedAt: row.started_at.toISOString(),
      ...(row.status_code === null ? {} : { statusCode: row.status_code }),
      latencyMs: row.latency_ms,
      ...(row.error === null ? {} : { error: row.error }),
      answer: row.answer_head,
    }));
  }

  /** A new delivery of delivery `id`'s event to the same receiver, due now; undefined when `receiver` has no such delivery. */
  async redeliver(receiver: string, id: string): Promise<{ delivery: string; event: string } | undefined> {
    if (!/^\d{1,18}$/.test(id)) return undefined;
    const { rows } = await this.#database.query<{ id: string; event_id: string }>(
      `INSERT INTO outbound_deliveries (event_id, receiver, subject)
       SELECT event_id, receiver, subject FROM outbound_deliveries WHERE id = $1 AND receiver = $2
       RETURNING id, event_id`,
      [id, receiver],
    );
    return rows[0] ? { delivery: String(rows[0].id), event: rows[0].event_id } : undefined;
  }

  /** How many events wait to be routed or delivered, and the age in seconds of the oldest (0 for none). */
  async backlog(): Promise<{ pending: number; oldestAgeSeconds: number }> {
    const { rows } = await this.#database.query<{ pending: string; oldest: number | null }>(
      `SELECT count(*) AS pending, extract(epoch FROM now() - min(created_at))::float8 AS oldest FROM (
         SELECT created_at FROM outbox_events WHERE routed_at IS NULL
         UNION ALL SELECT created_at FROM outbound_deliveries WHERE state = 'pending') waiting`,
      [],
    );
    return { pending: Number(rows[0]?.pending ?? 0), oldestAgeSeconds: Math.max(0, rows[0]?.oldest ?? 0) };
  }

  /** Removes up to `limit` events recorded longer than `retentionMs` ago, with their deliveries and attempts. */
  async removeExpired(retentionMs: number, limit: number): Promise<number> {
    const { rowCount } = await this.#database.query(
      `DELETE FROM outbox_events WHERE id IN (
         SELECT id FROM outbox_events WHERE created_at < now() - $1::float8 * interval '1 millisecond'
         ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [retentionMs, limit],
    );
    return rowCount ?? 0;
  }
}

function toEvent(row: EventRow): OutboxEvent {
  return {
    id: row.id,
    type: row.type,
    subject: row.subject,
    scope: row.scope,
    data: row.data,
    createdAt: row.created_at.toISOString(),
    ...(row.trace_parent === null ? {} : { traceParent: row.trace_parent }),
  };
}
