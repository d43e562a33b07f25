import type { AuditEvent } from '../../shared/domain/audit/audit-event.ts';
import type { AuditSink } from '../../shared/domain/audit/audit-recorder.ts';

/** An audit sink that keeps every event, for tests to find what was recorded. */
export class AuditCapture implements AuditSink {
  readonly events: AuditEvent[] = [];

  write(event: AuditEvent): void {
    this.events.push(event);
  }

  async close(): Promise<void> {}

  /** The events of one request, by the `Audit-Id` its answer carried. */
  byAuditId(auditId: string | null): AuditEvent[] {
    return this.events.filter((event) => event.auditID === auditId);
  }

  /** The one ResponseComplete event of the request whose answer carried `response`'s Audit-Id. */
  completed(response: Response): AuditEvent {
    const events = this.byAuditId(response.headers.get('audit-id')).filter(
      (event) => event.stage === 'ResponseComplete',
    );
    if (events.length !== 1) throw new Error(`expected one ResponseComplete event, found ${events.length}`);
    return events[0]!;
  }
}
