// W3C Trace Context `traceparent`: version-traceid-parentid-flags, lower-case hex.
const TRACE_PARENT = /^([\da-f]{2})-([\da-f]{32})-([\da-f]{16})-[\da-f]{2}(-|$)/;
const ZEROS = /^0+$/;

/**
 * The trace id of a valid incoming `traceparent` header, else undefined. Read without the
 * OpenTelemetry SDK, so a request log line names the caller's trace even when tracing is off.
 */
export function traceIdOfTraceParent(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const parts = TRACE_PARENT.exec(header.trim());
  // Version ff is forbidden, and an all-zero trace or parent id marks an invalid header.
  if (parts === null || parts[1] === 'ff' || ZEROS.test(parts[2]!) || ZEROS.test(parts[3]!)) return undefined;
  // Version 00 has exactly four fields; a later version may add more after a dash.
  if (parts[1] === '00' && parts[4] === '-') return undefined;
  return parts[2];
}
