import { auditEvent, auditLevel, isWriteVerb } from '../../../domain/audit/audit-event-builder.ts';
import type { AuditRecorder } from '../../../domain/audit/audit-recorder.ts';
import { apiError, retryAfter } from '../../../base/http/error-catalogue.ts';
import type { Filter } from './filter-chain.ts';

/**
 * AUDIT_MODE=blocking: a write is done only once its `RequestReceived` event is stored in the
 * database; when it cannot be, the write is refused with 503 `AuditUnavailable` and nothing is done,
 * rather than act unrecorded. Last before the handler: what the chain refused acted on nothing.
 * Reads pass as they are (their events are batched like every `ResponseComplete`).
 */
export function withAuditGate(recorder: AuditRecorder): Filter {
  return async (request, next) => {
    const receipt = request.auditReceipt;
    if (!receipt || !isWrite(request)) return next(request);
    const level = auditLevel(recorder.policy, request, 200, false);
    if (level !== 'None') {
      try {
        await recorder.recordBeforeActing(auditEvent(receipt, request, undefined, 'RequestReceived', level));
      } catch {
        throw apiError(
          'AuditUnavailable',
          'the audit trail cannot be written to the database (AUDIT_MODE=blocking), so the write was not done; retry shortly',
          retryAfter(5),
        );
      }
    }
    return next(request);
  };
}

/** A request that changes something: a write verb was authorized, or a controller call other than a read. */
function isWrite(request: {
  method: string;
  authorizationAsked?: { verb: string };
  route?: { target: string };
}): boolean {
  if (request.authorizationAsked && isWriteVerb(request.authorizationAsked.verb)) return true;
  return request.route?.target === 'internal' && request.method !== 'GET';
}
