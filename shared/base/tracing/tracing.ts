import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';

// The API alone (no SDK) is all that the code paths load: with tracing off each helper below is
// one boolean test, and the API's global no-ops are never even reached.
let tracingOn = false;

/** Whether the SDK is installed (start-tracing.ts) and spans are made. */
export function isTracingOn(): boolean {
  return tracingOn;
}

/** Called once the SDK is the global tracer provider. */
export function markTracingOn(): void {
  tracingOn = true;
}

/** The instrumentation scope of every span this server makes. */
const TRACER_NAME = 'platform-api';

export { SpanKind };
export type { Attributes, Context, Span };

/** A span to start: its name (never a raw path or a secret), kind and first attributes. */
export interface SpanDescription {
  name: string;
  kind: SpanKind;
  attributes?: Attributes;
}

/**
 * Runs `work` in a child span of the active context, ended when `work` settles (failed: status
 * error with the error's type, never its message, which may echo input). `describe` runs only
 * when tracing is on; `work` is handed the span then, undefined otherwise.
 */
export function inSpan<T>(describe: () => SpanDescription, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!tracingOn) return work(undefined);
  const { name, ...options } = describe();
  return trace.getTracer(TRACER_NAME).startActiveSpan(name, options, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      markFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Runs `work` in a span whose parent is the W3C `traceParent` stored with some work (an outbox row),
 * not whatever is active now: work done later, by another request, joins the trace that asked for it.
 * Without a stored context the span is the active context's child. As `inSpan` otherwise.
 */
export function inSpanUnder<T>(
  traceParent: string | undefined,
  describe: () => SpanDescription,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!tracingOn) return work(undefined);
  const parent = traceParent ? propagation.extract(ROOT_CONTEXT, { traceparent: traceParent }) : context.active();
  return context.with(parent, () => inSpan(describe, work));
}

/** The span's context as a W3C `traceparent` value (`00-<trace id>-<span id>-<flags>`), to store beside work for later. */
export function traceParentOf(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
}

/** Starts a span under the active one, for work whose end the caller reports (a callback's). */
export function startChildSpan({ name, ...options }: SpanDescription): Span {
  return trace.getTracer(TRACER_NAME).startSpan(name, options);
}

/** `callback` bound to the context active now: it runs in it whoever calls it (a pool handing out a connection). */
export function bindToActiveContext<F extends (...args: never[]) => unknown>(callback: F): F {
  return tracingOn ? context.bind(context.active(), callback) : callback;
}

/** Starts a SERVER span under the trace context that `headers` carry (`traceparent`, `tracestate`). */
export function startServerSpan(
  name: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  attributes: Attributes,
): { span: Span; context: Context } {
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const span = trace.getTracer(TRACER_NAME).startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs `work` with `spanContext` active, so the spans it starts (and the calls it propagates to) are its children. */
export function withContext<T>(spanContext: Context, work: () => T): T {
  return context.with(spanContext, work);
}

/** Adds the trace context (by default the active one) to outgoing request headers (W3C `traceparent`, `tracestate`). */
export function injectTraceContext(headers: Record<string, unknown>, from?: Context): void {
  if (tracingOn) propagation.inject(from ?? context.active(), headers);
}

/** Records an HTTP answer's status on a span: 5xx marks it failed (a 404 or 409 is an answer, not a failure). */
export function setResponseStatus(span: Span, status: number): void {
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Ends a server span with the answer's status (setResponseStatus). */
export function endWithStatus(span: Span, status: number): void {
  setResponseStatus(span, status);
  span.end();
}

/** Marks a span failed by the error's type (`error.type`); the message is left out, it may echo input. */
export function markFailed(span: Span, error: unknown): void {
  const type = error instanceof Error ? ((error as { reason?: unknown }).reason ?? error.name) : typeof error;
  span.setAttribute('error.type', String(type));
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** The trace id to write in a log line: the span's when it is recorded, else none. */
export function recordedTraceId(span: Span): string | undefined {
  return span.isRecording() ? span.spanContext().traceId : undefined;
}
