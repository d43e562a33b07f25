import type { TracingSettings } from '../config/tracing-settings.ts';
import type { Logger } from '../logging/logger.ts';
import type { InstalledTracing } from './tracing-sdk.ts';
import { markTracingOn } from './tracing.ts';

let installing: Promise<InstalledTracing | undefined> | undefined;

/**
 * Installs the OpenTelemetry SDK when an OTLP endpoint is configured; without one nothing of the
 * SDK is imported (cold start does not pay for it) and the code paths' spans stay one boolean
 * test each. Once per process: the first entry point to start names the service
 * (OTEL_SERVICE_NAME, else `defaultServiceName`).
 */
export function startTracing(settings: TracingSettings, defaultServiceName: string, logger: Logger): Promise<void> {
  const { tracesUrl } = settings;
  if (tracesUrl === undefined) return Promise.resolve();
  installing ??= import('./tracing-sdk.ts').then(({ installTracing }) => {
    const serviceName = settings.serviceName ?? defaultServiceName;
    const installed = installTracing({ ...settings, tracesUrl }, serviceName, logger);
    markTracingOn();
    logger.info('tracing on: spans exported as OTLP/HTTP JSON', {
      // The origin and path only: a URL could carry credentials in its user part or query.
      endpoint: `${new URL(tracesUrl).origin}${new URL(tracesUrl).pathname}`,
      serviceName,
      sampler: settings.sampling.sampler,
    });
    return installed;
  });
  return installing.then(() => undefined);
}

/**
 * Exports the spans not yet sent (on shutdown; tests read them at once). No-op with tracing off.
 * A collector that is down does not fail the shutdown: the SDK reports the failed export.
 */
export async function flushTraces(): Promise<void> {
  await (await installing)?.forceFlush().catch(() => undefined);
}
