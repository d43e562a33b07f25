import pg from 'pg';
import { classifyDatabaseError } from '../database/database-unavailable-error.ts';
import type { RunLogLine } from './run.ts';

/** The channel the `run_log_lines` trigger notifies with `{"runId", "lastSeq"}` on every append. */
const RUN_LOG_CHANNEL = 'run_log_lines';

/** Reads up to `limit` lines of a run after `afterSeq`, in order. */
export type ReadLogLines = (runId: string, afterSeq: number, limit: number) => Promise<RunLogLine[]>;

/** Who wants which run's new log lines, and from where. */
export interface LogLineSubscription {
  runId: string;
  /** Deliver lines with `seq` greater than this; 0 for the whole log. */
  afterSeq: number;
  /** Called with each batch of new lines, in order, never overlapping; awaited before the next batch. */
  onLines: (lines: RunLogLine[]) => void | Promise<void>;
  /** Called when new lines could not be read; delivery resumes on the next notification or reconnect. */
  onError?: (error: unknown) => void;
}

interface ActiveSubscription extends LogLineSubscription {
  cursor: number;
  delivery: Promise<void>;
}

const CATCH_UP_PAGE_SIZE = 500;
const RECONNECT_DELAY_MS = 1_000;

/**
 * Holds one dedicated LISTEN connection for every log subscriber of this process, opened on the
 * first subscription and closed after the last. After a lost connection it reconnects and catches
 * every subscriber up from its cursor, so no line is missed while it was away.
 */
export class RunLogListener {
  readonly #connectionConfig: pg.ClientConfig;
  readonly #readLogLines: ReadLogLines;
  readonly #subscriptions = new Map<string, Set<ActiveSubscription>>();
  #client: pg.Client | undefined;
  #connecting: Promise<void> | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;

  constructor(connectionConfig: pg.ClientConfig, readLogLines: ReadLogLines) {
    this.#connectionConfig = connectionConfig;
    this.#readLogLines = readLogLines;
  }

  /** Starts delivering lines after `afterSeq` (existing ones first); resolves to an unsubscribe function. */
  async subscribe(subscription: LogLineSubscription): Promise<() => Promise<void>> {
    const active: ActiveSubscription = { ...subscription, cursor: subscription.afterSeq, delivery: Promise.resolve() };
    const forRun = this.#subscriptions.get(active.runId) ?? new Set();
    this.#subscriptions.set(active.runId, forRun.add(active));
    const unsubscribe = async (): Promise<void> => {
      forRun.delete(active);
      if (forRun.size === 0 && this.#subscriptions.get(active.runId) === forRun) this.#subscriptions.delete(active.runId);
      if (this.#subscriptions.size === 0) await this.#disconnect();
    };
    try {
      await this.#connect();
    } catch (error) {
      await unsubscribe();
      throw classifyDatabaseError(error);
    }
    // Reading the backlog only once LISTEN is active means no append can fall between the two.
    this.#scheduleCatchUp(active);
    return unsubscribe;
  }

  #connect(): Promise<void> {
    if (this.#client) return Promise.resolve();
    this.#connecting ??= this.#openListeningClient().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #openListeningClient(): Promise<void> {
    const client = new pg.Client(this.#connectionConfig);
    client.on('error', () => this.#handleLostConnection(client));
    client.on('end', () => this.#handleLostConnection(client));
    client.on('notification', (message) => this.#handleNotification(message.payload));
    try {
      await client.connect();
      await client.query(`LISTEN ${RUN_LOG_CHANNEL}`);
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      throw error;
    }
    this.#client = client;
  }

  #handleNotification(payload: string | undefined): void {
    const { runId, lastSeq } = parseNotification(payload);
    for (const subscription of this.#subscriptions.get(runId ?? '') ?? []) {
      if (lastSeq === undefined || lastSeq > subscription.cursor) this.#scheduleCatchUp(subscription);
    }
  }

  #handleLostConnection(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    client.end().catch(() => undefined);
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#reconnectTimer || this.#subscriptions.size === 0) return;
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      if (this.#subscriptions.size === 0) return;
      this.#connect().then(
        () => this.#allSubscriptions().forEach((subscription) => this.#scheduleCatchUp(subscription)),
        () => this.#scheduleReconnect(),
      );
    }, RECONNECT_DELAY_MS);
  }

  #allSubscriptions(): ActiveSubscription[] {
    return [...this.#subscriptions.values()].flatMap((forRun) => [...forRun]);
  }

  #scheduleCatchUp(subscription: ActiveSubscription): void {
    subscription.delivery = subscription.delivery.then(() => this.#deliverNewLines(subscription));
  }

  async #deliverNewLines(subscription: ActiveSubscription): Promise<void> {
    try {
      for (;;) {
        if (!this.#subscriptions.get(subscription.runId)?.has(subscription)) return;
        const lines = await this.#readLogLines(subscription.runId, subscription.cursor, CATCH_UP_PAGE_SIZE);
        if (lines.length === 0) return;
        subscription.cursor = lines[lines.length - 1]!.seq;
        await subscription.onLines(lines);
        if (lines.length < CATCH_UP_PAGE_SIZE) return;
      }
    } catch (error) {
      subscription.onError?.(error);
    }
  }

  async #disconnect(): Promise<void> {
    clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
    await this.#connecting?.catch(() => undefined);
    // A new subscriber may have arrived while the connection was still opening: keep it then.
    const client = this.#client;
    if (!client || this.#subscriptions.size > 0) return;
    this.#client = undefined;
    await client.end().catch(() => undefined);
  }
}

function parseNotification(payload: string | undefined): { runId?: string; lastSeq?: number } {
  try {
    return JSON.parse(payload ?? '{}') as { runId?: string; lastSeq?: number };
  } catch {
    return {};
  }
}
