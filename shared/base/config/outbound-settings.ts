import ipaddr from 'ipaddr.js';
import { ConfigError } from './config-error.ts';
import type { Environment } from './environment.ts';
import { parseHttpUrlSetting, settingReader } from './setting-values.ts';

/** The outbound engine's settings (shared/domain/outbound/, docs/notifications.md "Settings"). */
export interface OutboundSettings {
  /** OUTBOUND_MAX_ATTEMPTS: attempts of one delivery before it is given up (default 8, 1 to 50). */
  readonly maxAttempts: number;
  /** OUTBOUND_RETRY_BASE: the wait before the second attempt; each next one doubles it, with jitter (default 30s). */
  readonly retryBaseMs: number;
  /** OUTBOUND_RETRY_MAX: the longest wait between two attempts (default 1h). */
  readonly retryMaxMs: number;
  /** OUTBOUND_TIMEOUT: how long one attempt may take, connection and answer included (default 10s, at most 2m). */
  readonly timeoutMs: number;
  /** OUTBOUND_MAX_ANSWER_BYTES: the most of an answer read; the rest is not waited for (default 64 KiB, at most 1 MiB). */
  readonly maxAnswerBytes: number;
  /** OUTBOUND_CONCURRENCY_PER_RECEIVER: deliveries one instance sends to one receiver at once (default 4, 1 to 64). */
  readonly concurrencyPerReceiver: number;
  /** OUTBOUND_SWEEP_INTERVAL: how often a process that stays up sweeps what is due (default 2s, 100ms to 10m). */
  readonly sweepIntervalMs: number;
  /**
   * OUTBOUND_SOURCE_INTERVAL: how often, across every instance together, a sweep runs the sources of cluster events
   * (the reconciler listing every Project and Rollout); sweeps in between skip them (default 10s, 0s to 10m).
   */
  readonly sourceIntervalMs: number;
  /** OUTBOUND_SWEEP_BATCH: the most deliveries one sweep claims (default 200, 1 to 5000). */
  readonly sweepBatch: number;
  /** OUTBOUND_RETENTION: events, deliveries and attempts are removed this long after the event (default 30 days). */
  readonly retentionMs: number;
  /** OUTBOUND_ALLOWED_CIDRS: ranges a receiver may be in although they are private, loopback or link-local (default none). */
  readonly allowedCidrs: readonly string[];
  /** CONSOLE_URL: the web console's origin, linked to from notifications (default: none, the API's run record is linked). */
  readonly consoleUrl: string | undefined;
}

/** Bounds each duration is checked against at start; every one stays below Node's 2^31-1 ms timer limit. */
export const OUTBOUND_RETRY_BASE_BOUNDS = { min: '10ms', max: '1h', example: '30s' } as const;
export const OUTBOUND_RETRY_MAX_BOUNDS = { min: '10ms', max: '24h', example: '1h' } as const;
export const OUTBOUND_RETENTION_BOUNDS = { min: '1h', max: '87600h', example: '720h' } as const;

/** Reads the outbound section of the settings; throws ConfigError naming the bad variable. */
export function loadOutboundSettings(env: Environment): OutboundSettings {
  const setting = settingReader(env);
  const retryBaseMs = setting.duration('OUTBOUND_RETRY_BASE', { ...OUTBOUND_RETRY_BASE_BOUNDS, fallback: '30s' });
  const retryMaxMs = setting.duration('OUTBOUND_RETRY_MAX', { ...OUTBOUND_RETRY_MAX_BOUNDS, fallback: '1h' });
  if (retryMaxMs < retryBaseMs)
    throw new ConfigError('OUTBOUND_RETRY_MAX', `is shorter than OUTBOUND_RETRY_BASE (${retryBaseMs} ms)`);
  const consoleUrl = setting.text('CONSOLE_URL');
  return {
    maxAttempts: setting.integer('OUTBOUND_MAX_ATTEMPTS', { fallback: 8, min: 1, max: 50 }),
    retryBaseMs,
    retryMaxMs,
    timeoutMs: setting.duration('OUTBOUND_TIMEOUT', { min: '100ms', max: '2m', example: '10s', fallback: '10s' }),
    maxAnswerBytes: setting.integer('OUTBOUND_MAX_ANSWER_BYTES', { fallback: 65_536, min: 1_024, max: 1_048_576 }),
    concurrencyPerReceiver: setting.integer('OUTBOUND_CONCURRENCY_PER_RECEIVER', { fallback: 4, min: 1, max: 64 }),
    sweepIntervalMs: setting.duration('OUTBOUND_SWEEP_INTERVAL', {
      min: '100ms',
      max: '10m',
      example: '2s',
      fallback: '2s',
    }),
    sourceIntervalMs: setting.duration('OUTBOUND_SOURCE_INTERVAL', {
      min: '0s',
      max: '10m',
      example: '10s',
      fallback: '10s',
    }),
    sweepBatch: setting.integer('OUTBOUND_SWEEP_BATCH', { fallback: 200, min: 1, max: 5_000 }),
    retentionMs: setting.duration('OUTBOUND_RETENTION', { ...OUTBOUND_RETENTION_BOUNDS, fallback: `${30 * 24}h` }),
    allowedCidrs: allowedCidrs(setting.list('OUTBOUND_ALLOWED_CIDRS')),
    consoleUrl: consoleUrl === undefined ? undefined : parseHttpUrlSetting('CONSOLE_URL', consoleUrl).origin,
  };
}

/** OUTBOUND_ALLOWED_CIDRS's entries (`127.0.0.1/32, fd00::/8`), each checked here. */
function allowedCidrs(ranges: string[]): string[] {
  for (const range of ranges) {
    if (!ipaddr.isValidCIDR(range))
      throw new ConfigError('OUTBOUND_ALLOWED_CIDRS', `"${range}" is not a CIDR range such as 10.0.0.0/8 or fd00::/8`);
  }
  return ranges;
}
