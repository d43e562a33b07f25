// The OpenTelemetry SDK, the OTLP exporter and the AsyncLocalStorage context manager: imported
// only by start-tracing.ts, dynamically and only when an OTLP endpoint is configured, so a server
// with tracing off never reads these modules (the bundles keep them in a chunk of their own).
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { setGlobalErrorHandler, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import type { TraceSampling, TracingSettings } from '../config/tracing-settings.ts';
import type { Logger } from '../logging/logger.ts';

/** A collector that stays down fails an export every few seconds: said at most this often. */
const EXPORT_FAILURE_REPORT_MS = 60_000;

/** What start-tracing.ts keeps of the installed SDK: flushing the spans not yet exported. */
export interface InstalledTracing {
  forceFlush(): Promise<void>;
}

/**
 * Makes the SDK the process's tracer provider: spans batched and POSTed as OTLP/HTTP JSON to the
 * configured URL, the W3C trace context propagated, the active span carried across `await`s by
 * AsyncLocalStorage.
 */
export function installTracing(
  settings: TracingSettings & { tracesUrl: string },
  serviceName: string,
  logger: Logger,
): InstalledTracing {
  let reportedAt = Number.NEGATIVE_INFINITY;
  // The SDK reports failed exports here (silently by default): spans dropped is worth a warning.
  setGlobalErrorHandler((error) => {
    if (Date.now() - reportedAt < EXPORT_FAILURE_REPORT_MS) return;
    reportedAt = Date.now();
    logger.warn('trace export failed; spans are dropped until the collector answers', {
      detail: error instanceof Error ? error.message : String(error),
    });
  });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    sampler: samplerOf(settings.sampling),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: settings.tracesUrl, headers: { ...settings.exportHeaders } }),
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return provider;
}

function samplerOf({ sampler, ratio }: TraceSampling): Sampler {
  const root = sampler.endsWith('always_off')
    ? new AlwaysOffSampler()
    : sampler.endsWith('traceidratio')
      ? new TraceIdRatioBasedSampler(ratio)
      : new AlwaysOnSampler();
  return sampler.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}
