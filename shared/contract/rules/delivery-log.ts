// A Notification's delivery log as `GET .../notifications/{notification}/deliveries` answers it
// (docs/notifications.md), declared once: the server answers it, the plugin and the console read it
// (browser-safe).

/** Where a delivery stands (the `outbound_deliveries.state` column's CHECK). */
export type DeliveryState = 'pending' | 'delivered' | 'failed';

/** One attempt as the delivery log shows it. */
export interface LoggedAttempt {
  delivery: string;
  event: string;
  eventType: string;
  subject: string;
  state: DeliveryState;
  attempt: number;
  startedAt: string;
  statusCode?: number;
  latencyMs: number;
  error?: string;
  answer: string;
}
