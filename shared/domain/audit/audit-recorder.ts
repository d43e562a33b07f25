import type { AuditPolicy } from '../../base/config/audit-settings.ts';
import type { AuditEvent } from './audit-event.ts';

/**
 * Where events go. `write` only queues (the request never waits on a sink); `close` hands over the
 * rest. `json` is the event as one line of JSON, serialised once for every sink.
 */
export interface AuditSink {
  write(event: AuditEvent, json: string): void;
  close(): Promise<void>;
}

/** A sink that can also store one event before the request goes on (the database's, AUDIT_MODE=blocking). */
export interface BlockingAuditSink extends AuditSink {
  writeNow(event: AuditEvent, json: string): Promise<void>;
}

/**
 * The process's audit trail: the policy deciding what is recorded, and the sinks every recorded
 * event goes to (standard output, PostgreSQL). One per process, shared by its functions.
 */
export class AuditRecorder {
  readonly policy: AuditPolicy;
  readonly #sinks: AuditSink[];
  /**
   * With AUDIT_MODE=blocking, the database sink: a write's event is stored there before the write is
   * done (`recordBeforeActing`), and a write whose event cannot be stored is refused.
   */
  readonly #blocking: BlockingAuditSink | undefined;

  constructor(policy: AuditPolicy, sinks: AuditSink[], blocking?: BlockingAuditSink) {
    this.policy = policy;
    this.#sinks = sinks;
    this.#blocking = blocking;
  }

  /** Whether writes wait for their event to be stored (AUDIT_MODE=blocking with a database). */
  get blocksWrites(): boolean {
    return this.#blocking !== undefined;
  }

  /** Stores a write's `RequestReceived` event before the write is done; throws when it cannot be stored. */
  async recordBeforeActing(event: AuditEvent): Promise<void> {
    const json = JSON.stringify(event);
    await this.#blocking?.writeNow(event, json);
    for (const sink of this.#sinks) if (sink !== this.#blocking) sink.write(event, json);
  }

  record(event: AuditEvent): void {
    // Serialised here, once, and handed to every sink with the event (issue 22, item 6: a cache
    // keyed by the event, a WeakMap, cost a tenth of recording one).
    const json = JSON.stringify(event);
    for (const sink of this.#sinks) sink.write(event, json);
  }

  async close(): Promise<void> {
    await Promise.all(this.#sinks.map((sink) => sink.close()));
  }
}
