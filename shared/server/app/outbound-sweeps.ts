import type { OutboundSettings } from '../../base/config/outbound-settings.ts';
import type { Logger } from '../../base/logging/logger.ts';
import type { Metrics } from '../../base/metrics/metrics.ts';
import { repeatInBackground, type BackgroundTask } from '../../base/node/background-task.ts';
import type {
  OutboundEngine,
  OutboundReceivers,
  OutboxSource,
  SweepReport,
} from '../../domain/outbound/outbound-engine.ts';
import type { RunDatabase } from './run-database.ts';

/** How often a process that stays up removes what is past OUTBOUND_RETENTION. */
const RETENTION_INTERVAL_MS = 3_600_000;

/** A process's way to the outbound engine (shared/domain/outbound/), on the run history database, made on first use. */
export interface OutboundSweeps {
  readonly settings: OutboundSettings;
  /** Adds a kind of receiver (notification subscriptions, run tasks); before the first sweep. A family registered already is kept as it is. */
  register(receivers: OutboundReceivers): void;
  /** Adds what records events of the cluster's changes before each sweep (shared/domain/cluster-events/); before the first sweep. One of a name registered already is kept. */
  registerSource(source: OutboxSource): void;
  /** One sweep now (the scheduled trigger's route): resolves once its attempts are recorded; ApiError 503 without a database. */
  sweep(): Promise<SweepReport>;
  /**
   * Sweeps every OUTBOUND_SWEEP_INTERVAL from now on in this process (once, however often it is asked), and
   * removes what is past OUTBOUND_RETENTION hourly, for processes that stay up (npm start, a container not
   * scaled to zero). A tick finding the database not open is skipped: the timer never opens it on its own.
   */
  sweepInBackground(): void;
  /** The backlog for the metrics: undefined unless this process sweeps (has receivers) and its database is open already. */
  backlog(): Promise<{ pending: number; oldestAgeSeconds: number } | undefined>;
  close(): void;
}

/** The engine of one process; its module is imported at the first sweep, so a cold start loads none of it. */
export function lazyOutboundSweeps(
  runs: RunDatabase,
  settings: OutboundSettings,
  logger: Logger,
  metrics: Metrics,
): OutboundSweeps {
  const families: OutboundReceivers[] = [];
  const sources: OutboxSource[] = [];
  let engine: Promise<OutboundEngine> | undefined;
  let background: BackgroundTask[] = [];
  let closed = false;
  const loadEngine = () =>
    (engine ??= import('../../domain/outbound/outbound-engine.ts').then(
      ({ OutboundEngine }) => new OutboundEngine(runs.database, families, settings, logger, metrics, sources),
    ));
  // A timer's tick never opens the database on its own: a function that has not needed it skips the tick.
  const whenOpen = (work: (engine: OutboundEngine) => Promise<unknown>) => async () => {
    if (runs.openedPool()) await work(await loadEngine());
  };
  const onFailure = (error: unknown) =>
    logger.warn('outbound sweep failed; it is tried again at the next', {
      detail: error instanceof Error ? error.message : String(error),
    });
  return {
    settings,
    register(receivers) {
      // A function made again on the same context (a second handler of one process, as a readiness probe's)
      // registers the families it registered before: the engine keys them by name, so the first stands.
      if (families.some((known) => known.family === receivers.family)) return;
      if (engine) throw new Error(`receivers "${receivers.family}" registered after the first outbound sweep`);
      families.push(receivers);
    },
    registerSource(source) {
      if (sources.some((known) => known.name === source.name)) return;
      if (engine) throw new Error(`outbox source "${source.name}" registered after the first outbound sweep`);
      sources.push(source);
    },
    async sweep() {
      await runs.checkReady();
      return (await loadEngine()).sweep();
    },
    sweepInBackground() {
      if (closed || background.length > 0) return;
      background = [
        repeatInBackground(
          whenOpen((ready) => ready.sweepIfIdle()),
          { firstRunMs: settings.sweepIntervalMs, intervalMs: settings.sweepIntervalMs, onFailure },
        ),
        repeatInBackground(
          whenOpen((ready) => ready.removeExpired()),
          { firstRunMs: RETENTION_INTERVAL_MS, intervalMs: RETENTION_INTERVAL_MS, onFailure },
        ),
      ];
    },
    async backlog() {
      if (families.length === 0 || !runs.openedPool()) return undefined;
      return (await loadEngine()).queue.backlog();
    },
    close() {
      closed = true;
      for (const task of background) task.stop();
    },
  };
}
