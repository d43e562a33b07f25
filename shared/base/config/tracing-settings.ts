import { ConfigError } from './config-error.ts';
import type { Environment } from './environment.ts';
import { parseHttpUrlSetting, settingReader, type SettingReader } from './setting-values.ts';

/** How the root spans of new traces are sampled (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG). */
export interface TraceSampling {
  /** `always_on`, `always_off`, `traceidratio`, and each of them `parentbased_`: follow the caller's decision. */
  readonly sampler: TraceSamplerName;
  /** The share of traces kept by the `traceidratio` samplers, 0 to 1. */
  readonly ratio: number;
}

export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TraceSamplerName = (typeof TRACE_SAMPLERS)[number];

/**
 * OpenTelemetry tracing, by the standard OTEL_* variables: off (nothing of the SDK is loaded)
 * unless an OTLP endpoint is given. Spans are exported as OTLP/HTTP with JSON bodies.
 */
export interface TracingSettings {
  /**
   * Where spans are POSTed: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else
   * OTEL_EXPORTER_OTLP_ENDPOINT with `/v1/traces` added; undefined: tracing is off.
   */
  readonly tracesUrl: string | undefined;
  /** OTEL_SERVICE_NAME; undefined: `platform-api-<function>` (or `-gateway`), chosen by the entry point. */
  readonly serviceName: string | undefined;
  readonly sampling: TraceSampling;
  /** OTEL_EXPORTER_OTLP_TRACES_HEADERS, else OTEL_EXPORTER_OTLP_HEADERS: `key=value,...` sent with each export (a collector's token). */
  readonly exportHeaders: Readonly<Record<string, string>>;
}

/** Reads the tracing section of the settings; throws ConfigError naming the bad variable. */
export function loadTracingSettings(env: Environment): TracingSettings {
  const setting = settingReader(env);
  const disabled = setting.boolean('OTEL_SDK_DISABLED', { fallback: false });
  const protocol = setting.text('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? setting.text('OTEL_EXPORTER_OTLP_PROTOCOL');
  if (protocol !== undefined && protocol !== 'http/json') {
    const variable = setting.text('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL')
      ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
      : 'OTEL_EXPORTER_OTLP_PROTOCOL';
    throw new ConfigError(variable, `"${protocol}" is not supported: spans are exported as http/json`);
  }
  return {
    tracesUrl: disabled ? undefined : tracesUrl(setting),
    serviceName: setting.text('OTEL_SERVICE_NAME'),
    sampling: sampling(setting),
    exportHeaders: exportHeaders(setting),
  };
}

function tracesUrl(setting: SettingReader): string | undefined {
  const signalUrl = setting.text('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  if (signalUrl !== undefined) return parseHttpUrlSetting('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', signalUrl).href;
  const base = setting.text('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (base === undefined) return undefined;
  // The specification's rule for the base endpoint: the signal's path is appended to it.
  return `${parseHttpUrlSetting('OTEL_EXPORTER_OTLP_ENDPOINT', base).href.replace(/\/+$/, '')}/v1/traces`;
}

function sampling(setting: SettingReader): TraceSampling {
  const sampler = setting.text('OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on';
  if (!(TRACE_SAMPLERS as readonly string[]).includes(sampler))
    throw new ConfigError('OTEL_TRACES_SAMPLER', `"${sampler}" is not one of ${TRACE_SAMPLERS.join(', ')}`);
  const argument = setting.text('OTEL_TRACES_SAMPLER_ARG');
  const ratio = argument === undefined ? 1 : Number(argument);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
    throw new ConfigError('OTEL_TRACES_SAMPLER_ARG', `"${argument}" is not a number from 0 to 1`);
  return { sampler: sampler as TraceSamplerName, ratio };
}

// The W3C Baggage-like list the OTLP exporters read: `key=value` pairs, comma-separated, values URL-encoded.
function exportHeaders(setting: SettingReader): Record<string, string> {
  const variable = setting.text('OTEL_EXPORTER_OTLP_TRACES_HEADERS')
    ? 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'
    : 'OTEL_EXPORTER_OTLP_HEADERS';
  const text = setting.text(variable);
  const headers: Record<string, string> = {};
  if (text === undefined) return headers;
  for (const pair of text.split(',')) {
    const separator = pair.indexOf('=');
    const name = pair.slice(0, separator).trim().toLowerCase();
    // The value is not repeated in the message: it is usually a credential.
    if (separator <= 0 || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name))
      throw new ConfigError(variable, 'is not a comma-separated list of name=value pairs');
    try {
      headers[name] = decodeURIComponent(pair.slice(separator + 1).trim());
    } catch {
      throw new ConfigError(variable, `the value of ${name} is not URL-encoded`);
    }
  }
  return headers;
}
