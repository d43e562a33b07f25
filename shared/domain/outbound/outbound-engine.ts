import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Database } from '../../base/database/database.ts';
import type { OutboundSettings } from '../../base/config/outbound-settings.ts';
import type { Logger } from '../../base/logging/logger.ts';
import { NO_METRICS, type Metrics } from '../../base/metrics/metrics.ts';
import {
  injectTraceContext,
  inSpanUnder,
  markFailed,
  setResponseStatus,
  SpanKind,
  type Span,
} from '../../base/tracing/tracing.ts';
import { OutboundAddressPolicy } from './outbound-address-policy.ts';
import { OutboundCaller, type OutboundAnswer, type OutboundRequest } from './outbound-call.ts';
import { OutboundQueue, type ClaimedDelivery } from './outbound-queue.ts';
import type { DeliveryAttempt, OutboxEvent } from './outbox-event.ts';
import { retryDelayMs } from './retry-schedule.ts';

/** How a receiver family answers for one delivery: send this request, hold it (the receiver is paused), or drop it. */
export type ReceiverRequest = { request: OutboundRequest } | { hold: string } | { drop: string };

/**
 * One kind of receiver of the engine (notification subscriptions, run tasks): which of its receivers want
 * an event, and the request that delivers it to one of them. Receiver keys are the family's own; the
 * engine stores them as `<family>:<key>`.
 */
export interface OutboundReceivers {
  readonly family: string;
  receiversOf(event: OutboxEvent): Promise<readonly string[]>;
  requestFor(receiver: string, event: OutboxEvent, attempt: DeliveryAttempt): Promise<ReceiverRequest>;
}

/**
 * What records outbox events of changes made where no transaction of ours reaches (the cluster's Rollouts and
 * Projects): asked by every sweep, before it routes, to compare and record. It writes each event with its own
 * state in one transaction of `database`, so sweepers racing record each event once.
 */
export interface OutboxSource {
  readonly name: string;
  record(database: Database): Promise<unknown>;
}

/** What one sweep did. */
export interface SweepReport {
  routed: number;
  claimed: number;
  delivered: number;
  retried: number;
  givenUp: number;
  held: number;
}

/** What an attempt's log keeps of the answer. */
export const ANSWER_HEAD_BYTES = 512;
/** A lease is twice the attempt's timeout and this much more, so a live attempt (and its record) is never taken over. */
const LEASE_MARGIN_MS = 5_000;
/** How many expired events one statement removes. */
const RETENTION_BATCH = 5_000;

/**
 * The platform's one way out (issue 47; run tasks reuse it, issue 48): routes the outbox's events to the
 * receivers that want them, claims what is due, sends it safely (OutboundCaller), records every attempt,
 * retries with back-off and jitter up to OUTBOUND_MAX_ATTEMPTS. Any number of instances may sweep at once
 * (OutboundQueue). A sweep is started by the scheduled trigger's internal route or by the timer of a
 * process that stays up (shared/server/app/outbound-sweeps.ts).
 */
export class OutboundEngine {
  readonly #queue: OutboundQueue;
  readonly #families: ReadonlyMap<string, OutboundReceivers>;
  readonly #sources: readonly OutboxSource[];
  readonly #database: Database;
  readonly #settings: OutboundSettings;
  readonly #caller: OutboundCaller;
  readonly #logger: Logger;
  readonly #metrics: Pick<Metrics, 'outboundAttempt'>;
  /** This instance in the leases it takes. */
  readonly holder = `${hostname()}/${process.pid}/${randomUUID()}`;
  #claiming: Promise<unknown> | undefined;

  constructor(
    database: Database,
    receivers: readonly OutboundReceivers[],
    settings: OutboundSettings,
    logger: Logger,
    metrics: Pick<Metrics, 'outboundAttempt'> = NO_METRICS,
    sources: readonly OutboxSource[] = [],
  ) {
    this.#queue = new OutboundQueue(database);
    this.#database = database;
    this.#sources = sources;
    this.#families = new Map(receivers.map((family) => [family.family, family]));
    this.#settings = settings;
    this.#caller = new OutboundCaller(new OutboundAddressPolicy(settings.allowedCidrs), settings);
    this.#logger = logger;
    this.#metrics = metrics;
  }

  get queue(): OutboundQueue {
    return this.#queue;
  }

  /** Routes new events, claims what is due and delivers it; resolves once every claimed attempt is recorded. */
  async sweep(): Promise<SweepReport> {
    const claiming = this.#routeAndClaim();
    this.#claiming = claiming;
    const { routed, claimed } = await claiming.finally(() => {
      if (this.#claiming === claiming) this.#claiming = undefined;
    });
    const report: SweepReport = { routed, claimed: claimed.length, delivered: 0, retried: 0, givenUp: 0, held: 0 };
    // Every claimed delivery at once: the claim already kept each receiver within its concurrency limit.
    const outcomes = await Promise.all(claimed.map((delivery) => this.#deliver(delivery)));
    for (const outcome of outcomes) report[outcome] += 1;
    return report;
  }

  /**
   * A sweep, unless this instance's last one is still claiming (a timer's tick): a new sweep starts even
   * while the last one's deliveries are under way, so a slow receiver delays no other.
   */
  async sweepIfIdle(): Promise<SweepReport | undefined> {
    return this.#claiming ? undefined : this.sweep();
  }

  /** Removes the events (with their deliveries and attempts) older than OUTBOUND_RETENTION; resolves to how many. */
  async removeExpired(): Promise<number> {
    let removed = 0;
    for (;;) {
      const batch = await this.#queue.removeExpired(this.#settings.retentionMs, RETENTION_BATCH);
      removed += batch;
      if (batch < RETENTION_BATCH) return removed;
    }
  }

  async #routeAndClaim(): Promise<{ routed: number; claimed: ClaimedDelivery[] }> {
    await this.#recordSources();
    const routed = await this.#queue.route((event) => this.#receiversOf(event), this.#settings.sweepBatch);
    const claimed = await this.#queue.claim(
      this.holder,
      2 * this.#settings.timeoutMs + LEASE_MARGIN_MS,
      this.#settings.sweepBatch,
      this.#settings.concurrencyPerReceiver,
    );
    return { routed, claimed };
  }

  /**
   * Each source records what changed, when its turn has come (`#sourceDue`); one that fails (the cluster
   * unreachable) is logged and holds back no delivery.
   */
  async #recordSources(): Promise<void> {
    for (const source of this.#sources) {
      try {
        if (await this.#sourceDue(source.name)) await source.record(this.#database);
      } catch (error) {
        this.#logger.warn('outbox source failed; it is asked again at the next sweep', {
          source: source.name,
          detail: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }

  /**
   * Whether this sweep runs `source` now: the one sweep, of every instance's, that moves its `passed_at` on once
   * OUTBOUND_SOURCE_INTERVAL has passed since the last (the row's lock decides between instances), so a source that
   * lists the whole cluster runs once per interval for the fleet, not once per sweep of each instance.
   */
  async #sourceDue(source: string): Promise<boolean> {
    const { rowCount } = await this.#database.query(
      `INSERT INTO outbox_source_passes (source, passed_at) VALUES ($1, clock_timestamp())
       ON CONFLICT (source) DO UPDATE SET passed_at = excluded.passed_at
       WHERE outbox_source_passes.passed_at <= clock_timestamp() - make_interval(secs => $2::double precision / 1000)`,
      [source, this.#settings.sourceIntervalMs],
    );
    return rowCount === 1;
  }

  async #receiversOf(event: OutboxEvent): Promise<string[]> {
    const keys: string[] = [];
    for (const family of this.#families.values()) {
      for (const receiver of await family.receiversOf(event)) keys.push(`${family.family}:${receiver}`);
    }
    return keys;
  }

  /** One attempt, a span of the trace that recorded the event (its outbox row carries the context). */
  #deliver(delivery: ClaimedDelivery): Promise<Exclude<keyof SweepReport, 'routed' | 'claimed'>> {
    return inSpanUnder(
      delivery.event.traceParent,
      () => ({
        name: 'outbound delivery',
        kind: SpanKind.CLIENT,
        attributes: {
          'platform_api.outbound.family': familyOf(delivery.receiver),
          'platform_api.outbound.event_type': delivery.event.type,
          'platform_api.outbound.attempt': delivery.attempt,
        },
      }),
      (span) => this.#attempt(delivery, span),
    );
  }

  async #attempt(
    delivery: ClaimedDelivery,
    span: Span | undefined,
  ): Promise<Exclude<keyof SweepReport, 'routed' | 'claimed'>> {
    const startedAt = new Date();
    const family = this.#families.get(familyOf(delivery.receiver));
    const receiver = delivery.receiver.slice(delivery.receiver.indexOf(':') + 1);
    let answer: OutboundAnswer;
    let secrets: readonly string[] = [];
    try {
      const asked = family
        ? await family.requestFor(receiver, delivery.event, { deliveryId: delivery.id, attempt: delivery.attempt })
        : { drop: `no receiver family "${familyOf(delivery.receiver)}" in this version` };
      if ('hold' in asked) {
        await this.#queue.hold(delivery, this.holder, this.#settings.retryBaseMs);
        return 'held';
      }
      if ('drop' in asked) {
        await this.#record(delivery, startedAt, { latencyMs: 0, error: asked.drop, body: Buffer.alloc(0) }, true);
        return 'givenUp';
      }
      // The receiver may continue the trace (W3C traceparent), from this attempt's span.
      const headers: Record<string, string> = { ...asked.request.headers };
      injectTraceContext(headers);
      secrets = asked.request.secrets ?? [];
      answer = await this.#caller.send({ ...asked.request, headers });
    } catch (error) {
      // The request could not be made (its Secret unreadable, the cluster down): an attempt that failed.
      answer = { latencyMs: 0, error: error instanceof Error ? error.message : String(error), body: Buffer.alloc(0) };
    }
    if (span) {
      if (answer.statusCode !== undefined) setResponseStatus(span, answer.statusCode);
      // The error's text names the receiver's host: the span gets its kind alone.
      if (answer.error !== undefined) markFailed(span, new OutboundAttemptFailed());
    }
    return this.#record(delivery, startedAt, withoutSecrets(answer, secrets), false);
  }

  async #record(
    delivery: ClaimedDelivery,
    startedAt: Date,
    answer: OutboundAnswer,
    drop: boolean,
  ): Promise<'delivered' | 'retried' | 'givenUp'> {
    const delivered = answer.error === undefined;
    const givenUp = !delivered && (drop || delivery.attempt >= this.#settings.maxAttempts);
    await this.#queue.record(delivery, this.holder, {
      startedAt,
      ...(answer.statusCode === undefined ? {} : { statusCode: answer.statusCode }),
      latencyMs: answer.latencyMs,
      ...(answer.error === undefined ? {} : { error: answer.error }),
      answerHead: answerHead(answer.body),
      delivered,
      givenUp,
      retryInMs: delivered || givenUp ? 0 : retryDelayMs(delivery.attempt, this.#settings, Math.random),
    });
    this.#metrics.outboundAttempt({
      family: familyOf(delivery.receiver),
      outcome: delivered ? 'delivered' : givenUp ? 'given_up' : 'retried',
      seconds: answer.latencyMs / 1_000,
      attempt: delivery.attempt,
    });
    if (givenUp)
      this.#logger.warn('outbound delivery given up', {
        receiver: delivery.receiver,
        event: delivery.event.id,
        attempts: delivery.attempt,
        error: answer.error,
      });
    return delivered ? 'delivered' : givenUp ? 'givenUp' : 'retried';
  }
}

/** What replaces a Secret's value in the attempt's log. */
export const REDACTED = '[redacted]';

/**
 * The answer as the log may keep it: a receiver that echoes the request (its headers, its path) must not
 * put a Secret's value in the delivery log, a log line or an error. Secrets are taken out of the whole
 * answer read before its head is cut, so none is kept half.
 */
function withoutSecrets(answer: OutboundAnswer, secrets: readonly string[]): OutboundAnswer {
  const values = secrets.filter((value) => value.length > 0).sort((a, b) => b.length - a.length);
  if (values.length === 0) return answer;
  const scrub = (text: string) => values.reduce((result, value) => result.replaceAll(value, REDACTED), text);
  return {
    ...answer,
    ...(answer.error === undefined ? {} : { error: scrub(answer.error) }),
    body: Buffer.from(scrub(answer.body.toString('utf8'))),
  };
}

/** A span's `error.type` for an attempt that was not delivered (the reason is in the delivery log). */
class OutboundAttemptFailed extends Error {
  override name = 'OutboundAttemptFailed';
}

/** The family of a stored receiver key (`<family>:<key>`). */
function familyOf(receiverKey: string): string {
  return receiverKey.slice(0, receiverKey.indexOf(':'));
}

/** The first bytes of an answer as text, for the attempt's log (a cut multi-byte character is replaced). */
function answerHead(body: Buffer): string {
  return body.subarray(0, ANSWER_HEAD_BYTES).toString('utf8').replaceAll('\u0000', '');
}
