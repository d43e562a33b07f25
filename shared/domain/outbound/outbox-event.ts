/** A change the platform reports, as recorded in the outbox (`outbox_events`) by the transaction that made it. */
export interface OutboxEvent {
  /** Stable across every attempt and every receiver: the receivers' de-duplication key. */
  id: string;
  /** What happened: `run.created`, `run.running`, `run.succeeded`, `run.failed`, `run.cancelled`, `run.pending`. */
  type: string;
  /** What it happened to (`runs/<id>`); deliveries to one receiver keep the order of one subject's events. */
  subject: string;
  /** The Project the event belongs to. */
  scope: string;
  data: Record<string, unknown>;
  /** ISO 8601, when the change was committed. */
  createdAt: string;
  /** The W3C trace context of the change, when it was traced: its deliveries are spans of that trace. */
  traceParent?: string;
}

/** One delivery of an event to a receiver, as the engine hands it over for a request. */
export interface DeliveryAttempt {
  /** The delivery's id (one event, one receiver). */
  deliveryId: string;
  /** 1 for the first attempt. */
  attempt: number;
}
