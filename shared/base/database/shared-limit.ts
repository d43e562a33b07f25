import type { Logger } from '../logging/logger.ts';
import type { Metrics, SharedLimit as SharedLimitName } from '../metrics/metrics.ts';
import type { Database } from './database.ts';
import { SharedCountFallback } from './shared-count-fallback.ts';

/** What each limit's lines say: what is counted, where it is counted at start, and what counting in the process means. */
const WORDING: Record<SharedLimitName, { counted: string; inDatabase: string; inProcess: string; meanwhile: string }> =
  {
    login_failures: {
      counted: 'failed logins',
      inDatabase: 'failed logins are counted in the database, shared by every instance',
      inProcess:
        'failed logins are counted in this process only (no database): each instance allows the budgets on its own',
      meanwhile: 'each instance now allows the budgets on its own, starting from the counts the database last gave',
    },
    run_log_streams: {
      counted: 'run-log streams',
      inDatabase: 'run-log streams are capped per principal across every instance, counted in the database',
      inProcess:
        'run-log streams are capped per principal in this process only (no database): each instance allows the cap',
      meanwhile: 'each instance now allows the cap per principal on its own',
    },
    watches: {
      counted: 'watches',
      inDatabase: 'watches are capped per principal across every instance, counted in the database',
      inProcess: 'watches are capped per principal in this process only (no database): each instance allows the cap',
      meanwhile: 'each instance now allows the cap per principal on its own',
    },
  };

export interface SharedLimitOptions {
  /** The limit, as the metrics name it (`platform_api_shared_limit_store{limit}`). */
  name: SharedLimitName;
  /** The database every instance shares (opened on first use), or undefined: counted per process. */
  database: Database | undefined;
  logger: Logger;
  metrics: Pick<Metrics, 'sharedLimitStore' | 'sharedLimitFallback'>;
  /** The limit's values, stated with the start-up line (a budget, a cap and its setting). */
  budgets: Readonly<Record<string, unknown>>;
  /** How long to count in the process after the database failed before asking it again (DATABASE_RETRY_MS). */
  retryMs?: number;
}

/** A limit every instance counts together in the database, as its keeper (LoginThrottle, SharedStreamSlots) takes it. */
export interface SharedLimitCount {
  readonly name: SharedLimitName;
  /** Where it is counted: the shared database, or undefined (this process only). */
  readonly database: Database | undefined;
  readonly store: 'database' | 'process';
  /** Whether to ask the database now, and the log line and store metric of each failure and recovery. */
  readonly fallback: SharedCountFallback;
  /** One count made in the process because the database did not answer (or is being left alone): the metric. */
  countedInProcess(): void;
}

/**
 * A limit that must hold across instances (issue 36), wired once: the start-up line saying where it
 * is counted (with its budgets), the store gauge from then on, the fallback counter, and the
 * SharedCountFallback that decides when to ask the database again. Made when the function that
 * keeps the limit starts (login; run-logs; resources), so only that function says it.
 */
export function sharedLimit(options: SharedLimitOptions): SharedLimitCount {
  const { name, database, logger, metrics } = options;
  const wording = WORDING[name];
  const store = database ? 'database' : 'process';
  metrics.sharedLimitStore(name, store);
  if (database) logger.info(wording.inDatabase, options.budgets);
  else logger.warn(wording.inProcess, options.budgets);
  return {
    name,
    database,
    store,
    fallback: new SharedCountFallback({
      counted: wording.counted,
      meanwhile: wording.meanwhile,
      logger,
      onStoreChange: (now) => metrics.sharedLimitStore(name, now),
      ...(options.retryMs === undefined ? {} : { retryMs: options.retryMs }),
    }),
    countedInProcess: () => metrics.sharedLimitFallback(name),
  };
}
