// The OpenTelemetry SDK, the OTLP exporter and the AsyncLocalStorage context manager: imported
// only by start-tracing.ts, dynamically and only when an OTLP endpoint is configured, so a server
// with tracing off never reads these modules (the bundles keep them in a chunk of their own).
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
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
): InstalledTracing {
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
