import { randomUUID } from 'node:crypto';
import type { Database } from '../../base/database/database.ts';
import type { StreamKind } from '../../base/metrics/metrics.ts';
import type { SharedCountFallback } from '../../base/database/shared-count-fallback.ts';
import type { SharedLimitCount } from '../../base/database/shared-limit.ts';
import { withDeadline } from '../../base/node/deadline.ts';

/** How often an instance holding slots says it is alive. */
export const SLOT_HEARTBEAT_MS = 10_000;
/** An instance silent this long is taken for dead: its slots stop counting and are swept with it. */
export const SLOT_EXPIRY_MS = 30_000;
/** A statement waits at most this long for the database. */
const SLOT_QUERY_TIMEOUT_MS = 2_000;
/** A stream open waits at most this long for the database, opening it included, before the per-process count alone decides. */
const SLOT_DEADLINE_MS = 3_000;

export interface SharedStreamSlotsOptions {
  kind: StreamKind;
  /** The database every instance shares, opened on first use: its limit's (`sharedLimit`). */
  database: Database;
  /** The cap's shared limit (`run_log_streams` or `watches`): its fallback, metrics and start-up line. */
  limit: SharedLimitCount;
  heartbeatMs?: number;
  expiryMs?: number;
}

interface HeldSlot {
  principal: string;
  /** Whether the database holds its row (not while it did not answer, nor after this instance was swept). */
  registered: boolean;
  /** Its row may be there without an answer having said so (the database answered after the deadline). */
  maybeWritten: boolean;
}

/**
 * One instance's share of the streams (run-log streams, or watches) every instance counts together,
 * per principal (issue 36): a row per open stream in `stream_slots`, under this instance's row in
 * `stream_instances`, whose heartbeat (every `heartbeatMs` while it holds any) keeps them counted.
 * An instance that dies stops beating; after `expiryMs` its slots no longer count and the next
 * instance to open or beat sweeps them. Taking a slot is one statement (`take_stream_slot`),
 * serialised per principal, so two instances cannot both take a principal's last slot.
 *
 * A database that does not answer leaves the decision to the per-process count (StreamSessions),
 * said once in the log and by the metrics; the slots taken meanwhile, and releases that failed, are
 * written at the next heartbeat that reaches the database, as are all of them should this instance
 * have been swept while it could not beat.
 */
export class SharedStreamSlots {
  readonly #instance = randomUUID();
  readonly #held = new Map<string, HeldSlot>();
  readonly #unreleased = new Set<string>();
  readonly #options: SharedStreamSlotsOptions;
  readonly #heartbeatMs: number;
  readonly #expiry: string;
  readonly #fallback: SharedCountFallback;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: SharedStreamSlotsOptions) {
    this.#options = options;
    this.#heartbeatMs = options.heartbeatMs ?? SLOT_HEARTBEAT_MS;
    this.#expiry = `${options.expiryMs ?? SLOT_EXPIRY_MS} milliseconds`;
    this.#fallback = options.limit.fallback;
  }

  /**
   * Takes a slot for `principal` if it holds fewer than `max` across live instances: the slot's id,
   * or undefined when it holds them all. When the database does not answer the slot is taken here
   * alone (the caller's per-process count has decided) and written later.
   */
  async take(principal: string, max: number): Promise<string | undefined> {
    const slot = randomUUID();
    const asked = this.#fallback.ask;
    const taken = asked ? await this.#takeShared(slot, principal, max) : undefined;
    if (taken === false) return undefined;
    if (taken === undefined) this.#options.limit.countedInProcess();
    this.#held.set(slot, { principal, registered: taken === true, maybeWritten: asked });
    this.#beatWhileHolding();
    return slot;
  }

  /** Whether the database gave the slot; undefined when it did not answer. */
  async #takeShared(slot: string, principal: string, max: number): Promise<boolean | undefined> {
    try {
      const taking = this.#options.database.query<{ taken: boolean }>(
        'SELECT taken FROM take_stream_slot($1, $2, $3, $4, $5, $6::interval)',
        [slot, this.#instance, this.#options.kind, principal, max, this.#expiry],
        { timeoutMs: SLOT_QUERY_TIMEOUT_MS },
      );
      const { rows } = await withDeadline(taking, SLOT_DEADLINE_MS, 'taking a stream slot');
      this.#fallback.answered();
      return rows[0]!.taken;
    } catch (error) {
      this.#fallback.failed(error);
      return undefined;
    }
  }

  /** Frees a slot (its row goes at once, or at the next heartbeat when the database does not answer). */
  release(slot: string): void {
    const held = this.#held.get(slot);
    if (!held) return;
    this.#held.delete(slot);
    if (!held.registered && !held.maybeWritten) return;
    this.#unreleased.add(slot);
    void this.#releasePending();
  }

  /** Slots this instance holds (for tests and diagnostics). */
  get held(): number {
    return this.#held.size;
  }

  /** Stops beating without releasing anything, as a process that dies would (tests). */
  stopHeartbeat(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One heartbeat now: sweeps dead instances, says this one is alive, writes what it could not. */
  async heartbeat(): Promise<void> {
    try {
      const { rows } = await this.#options.database.query<{ alive: number }>(
        `WITH swept AS (
                 DELETE FROM stream_instances WHERE heartbeat_at < now() - $2::interval AND instance <> $1
               ), beat AS (
                 UPDATE stream_instances SET heartbeat_at = now() WHERE instance = $1 RETURNING instance
               )
               SELECT count(*)::int AS alive FROM beat`,
        [this.#instance, this.#expiry],
        { timeoutMs: SLOT_QUERY_TIMEOUT_MS },
      );
      // Swept while it could not beat: its rows went with it, so every slot it holds is written again.
      if (rows[0]!.alive === 0) for (const held of this.#held.values()) held.registered = false;
      await this.#releasePending();
      await this.#register();
      this.#fallback.answered();
    } catch (error) {
      this.#fallback.failed(error);
    }
  }

  async #releasePending(): Promise<void> {
    if (this.#unreleased.size === 0) return;
    const slots = [...this.#unreleased];
    try {
      await this.#options.database.query('DELETE FROM stream_slots WHERE slot = ANY($1::uuid[])', [slots], {
        timeoutMs: SLOT_QUERY_TIMEOUT_MS,
      });
      for (const slot of slots) this.#unreleased.delete(slot);
    } catch (error) {
      // Kept for the next heartbeat; until then the slot still counts (the safe side).
      this.#fallback.failed(error);
      this.#beatWhileHolding();
    }
  }

  async #register(): Promise<void> {
    const unregistered = [...this.#held].filter(([, held]) => !held.registered);
    if (unregistered.length === 0) return;
    await this.#options.database.query(
      `WITH instance AS (
               INSERT INTO stream_instances (instance, heartbeat_at) VALUES ($1, now())
               ON CONFLICT (instance) DO UPDATE SET heartbeat_at = now() RETURNING instance
             )
             INSERT INTO stream_slots (slot, instance, kind, principal)
             SELECT slot, (SELECT instance FROM instance), $2, principal
             FROM unnest($3::uuid[], $4::text[]) AS held(slot, principal)
             ON CONFLICT (slot) DO NOTHING`,
      [
        this.#instance,
        this.#options.kind,
        unregistered.map(([slot]) => slot),
        unregistered.map(([, held]) => held.principal),
      ],
      { timeoutMs: SLOT_QUERY_TIMEOUT_MS },
    );
    for (const [slot, held] of unregistered) {
      held.registered = true;
      // Released while its row was being written: the row goes too.
      if (!this.#held.has(slot)) this.#unreleased.add(slot);
    }
    await this.#releasePending();
  }

  #beatWhileHolding(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      if (this.#held.size === 0 && this.#unreleased.size === 0) this.stopHeartbeat();
      else void this.heartbeat();
    }, this.#heartbeatMs);
    this.#timer.unref();
  }
}
