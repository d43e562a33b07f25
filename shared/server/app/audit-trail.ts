import { AuditRecorder, type AuditSink } from '../../domain/audit/audit-recorder.ts';
import { startAuditRetention, type AuditRetention } from '../../domain/audit/audit-retention.ts';
import type { AuditStore } from '../../domain/audit/audit-store.ts';
import { DatabaseAuditSink } from '../../domain/audit/database-audit-sink.ts';
import { StdoutAuditSink } from '../../domain/audit/stdout-audit-sink.ts';
import type { Settings } from '../../base/config/settings.ts';
import type { PageTokens } from '../../base/database/page-tokens.ts';
import type { Logger } from '../../base/logging/logger.ts';
import type { RunDatabase } from './run-database.ts';

/** The process's audit trail and what it runs beside (the database sink, retention). */
export interface AuditTrail {
  recorder: AuditRecorder;
  /** The database sink when a database is in use; undefined otherwise (standard output only). */
  database: DatabaseAuditSink | undefined;
  /** The audit store of the database, for the audit API; throws ApiError 503 when there is none. */
  store(): Promise<AuditStore>;
  close(): Promise<void>;
}

export interface AuditTrailOptions {
  /** Replace the standard-output sink (tests read the events back); the database's is kept. */
  sinks?: AuditSink[];
  /** Whether the process has a database to write to: DATABASE_URL, or local development's embedded one. */
  withDatabase: boolean;
  /** What signs the list's `continue` tokens (the run store's too). */
  pageTokens: PageTokens;
}

/**
 * Builds the audit trail from the settings (docs/audit.md): standard output unless AUDIT_STDOUT=false,
 * and the database when the process has one, batched, with retention; AUDIT_MODE=blocking makes
 * writes wait for their event to be stored.
 */
export function createAuditTrail(
  settings: Settings,
  runs: RunDatabase,
  logger: Logger,
  options: AuditTrailOptions,
): AuditTrail {
  const { audit } = settings;
  let opening: Promise<AuditStore> | undefined;
  const store = () =>
    // The database opens at the store's first statement (a 503 until it can).
    (opening ??= import('../../domain/audit/audit-store.ts')
      .then(({ AuditStore }) => new AuditStore(runs.database, options.pageTokens))
      .catch((error: unknown) => {
        opening = undefined;
        throw error;
      }));
  const database = options.withDatabase
    ? new DatabaseAuditSink(store, { bufferEvents: audit.bufferEvents, logger })
    : undefined;
  const sinks = [...(options.sinks ?? (audit.stdout ? [new StdoutAuditSink()] : [])), ...(database ? [database] : [])];
  const recorder = new AuditRecorder(audit.policy, sinks, audit.mode === 'blocking' ? database : undefined);
  const retention: AuditRetention | undefined = database
    ? startAuditRetention(store, audit.retentionMs, logger)
    : undefined;
  return {
    recorder,
    database,
    store,
    async close() {
      retention?.stop();
      await recorder.close();
    },
  };
}
