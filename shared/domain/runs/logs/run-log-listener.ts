import pg from 'pg';
import { classifyDatabaseError } from '../../../base/database/database-unavailable-error.ts';
import { ConcurrencyLimit } from '../concurrency-limit.ts';
import type { RunLogLine } from '../run.ts';

/**
 * The channel the `run_log_lines` trigger notifies on every append: `{"runId", "lastSeq"}`, plus
 * `"firstSeq"` and `"lines"` when the appended lines fit in a notification (8000 bytes).
 */
const RUN_LOG_CHANNEL = 'run_log_lines';

/** Reads up to `limit` lines of a run after `afterSeq`, in order. */
export type ReadLogLines = (runId: string, afterSeq: number, limit: number) => Promise<RunLogLine[]>;

/** Who wants which run's new log lines, and from where. */
export interface LogLineSubscription {
  runId: string;
  /** Deliver lines with `seq` greater than this; 0 for the whole log. */
  afterSeq: number;
  /**
   * Called with each batch of new lines, in order, never overlapping. While the subscriber catches
   * up (`live` false) the returned promise is awaited before the next page is read. Live batches
   * are the run's shared ones, handed to every subscriber at once and not awaited: a subscriber
   * bounds what it buffers itself. The array is shared: never modify it.
   */
  onLines: (lines: readonly RunLogLine[], live: boolean) => void | Promise<void>;
  /** Called when new lines could not be read; delivery resumes on the next notification or reconnect. */
  onError?: (error: unknown) => void;
}

export interface RunLogListenerLimits {
  /** Lines per read, when catching up and when following. */
  pageSize: number;
  /** Catch-up reads running at once in this process, across every run. */
  concurrentCatchUps: number;
}

export const DEFAULT_LISTENER_LIMITS: RunLogListenerLimits = { pageSize: 500, concurrentCatchUps: 4 };
const RECONNECT_DELAY_MS = 1_000;

interface Subscriber {
  subscription: LogLineSubscription;
  /** The last seq handed to it. */
  position: number;
  /** Whether a catch-up of it is under way (while it is not yet following the run). */
  catchingUp: boolean;
  unsubscribed: boolean;
}

/**
 * One run's subscribers in this process. Those `following` are at the shared `cursor` and get
 * each new batch from one read (or from the notification itself); the others catch up on their own.
 */
interface RunFeed {
  runId: string;
  /** Every line up to here was handed to the followers; undefined until the first subscriber caught up. */
  cursor: number | undefined;
  /** The highest seq a notification announced. */
  announced: number;
  following: Set<Subscriber>;
  behind: Set<Subscriber>;
  reading: boolean;
}

interface Notification {
  runId?: string;
  lastSeq?: number;
  firstSeq?: number;
  lines?: string[];
}

/**
 * Holds one dedicated LISTEN connection for every log subscriber of this process, opened on the
 * first subscription and closed after the last, and fans each run's new lines out from memory:
 * one read per run per notification, none when the notification carries the lines. A subscriber
 * that is behind (new, or resuming) reads its backlog in pages, a bounded number of readers at
 * once per process, then joins the run's shared cursor. After a lost connection it reconnects and
 * reads what was appended meanwhile, so no line is missed.
 */
export class RunLogListener {
  readonly #connectionConfig: pg.ClientConfig;
  readonly #readLogLines: ReadLogLines;
  readonly #limits: RunLogListenerLimits;
  readonly #catchUpReads: ConcurrencyLimit;
  readonly #feeds = new Map<string, RunFeed>();
  #client: pg.Client | undefined;
  #connecting: Promise<void> | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;

  constructor(
    connectionConfig: pg.ClientConfig,
    readLogLines: ReadLogLines,
    limits: RunLogListenerLimits = DEFAULT_LISTENER_LIMITS,
  ) {
    this.#connectionConfig = connectionConfig;
    this.#readLogLines = readLogLines;
    this.#limits = limits;
    this.#catchUpReads = new ConcurrencyLimit(limits.concurrentCatchUps);
  }

  /** Starts delivering lines after `afterSeq` (existing ones first); resolves to an unsubscribe function. */
  async subscribe(subscription: LogLineSubscription): Promise<() => Promise<void>> {
    const subscriber: Subscriber = {
      subscription,
      position: subscription.afterSeq,
      catchingUp: false,
      unsubscribed: false,
    };
    const feed = this.#feedOf(subscription.runId);
    feed.behind.add(subscriber);
    const unsubscribe = async (): Promise<void> => {
      subscriber.unsubscribed = true;
      feed.behind.delete(subscriber);
      feed.following.delete(subscriber);
      if (feed.behind.size === 0 && feed.following.size === 0 && this.#feeds.get(feed.runId) === feed)
        this.#feeds.delete(feed.runId);
      if (this.#feeds.size === 0) await this.#disconnect();
    };
    try {
      await this.#connect();
    } catch (error) {
      await unsubscribe();
      throw classifyDatabaseError(error);
    }
    // Reading the backlog only once LISTEN is active means no append can fall between the two.
    void this.#catchUp(feed, subscriber);
    return unsubscribe;
  }

  /**
   * Makes sure the run's followers get every line up to `lastSeq` (e.g. the last line of a run that
   * has ended), reading it if no notification announced it.
   */
  expectLinesThrough(runId: string, lastSeq: number): void {
    const feed = this.#feeds.get(runId);
    if (!feed || lastSeq <= feed.announced) return;
    feed.announced = lastSeq;
    void this.#follow(feed);
  }

  #feedOf(runId: string): RunFeed {
    let feed = this.#feeds.get(runId);
    if (!feed) {
      feed = { runId, cursor: undefined, announced: 0, following: new Set(), behind: new Set(), reading: false };
      this.#feeds.set(runId, feed);
    }
    return feed;
  }

  /** Reads the subscriber's backlog page by page, then has it follow the shared cursor. */
  async #catchUp(feed: RunFeed, subscriber: Subscriber): Promise<void> {
    if (subscriber.catchingUp) return;
    subscriber.catchingUp = true;
    const { pageSize } = this.#limits;
    try {
      for (;;) {
        if (subscriber.unsubscribed) return;
        // A subscriber that left while waiting for its turn costs no read.
        const lines = await this.#catchUpReads.run(async () =>
          subscriber.unsubscribed ? [] : this.#readLogLines(feed.runId, subscriber.position, pageSize),
        );
        if (subscriber.unsubscribed) return;
        if (lines.length > 0) {
          subscriber.position = lines[lines.length - 1]!.seq;
          await subscriber.subscription.onLines(lines, false);
        }
        if (lines.length === pageSize) continue;
        // Caught up with what was stored a moment ago: join the followers if the cursor is no further.
        feed.cursor ??= subscriber.position;
        if (subscriber.position < feed.cursor) continue;
        feed.behind.delete(subscriber);
        if (subscriber.unsubscribed) return;
        feed.following.add(subscriber);
        if (feed.announced > feed.cursor) void this.#follow(feed);
        return;
      }
    } catch (error) {
      subscriber.subscription.onError?.(error);
    } finally {
      subscriber.catchingUp = false;
    }
  }

  #handleNotification(payload: string | undefined): void {
    const notification = parseNotification(payload);
    const feed = this.#feeds.get(notification.runId ?? '');
    if (!feed || typeof notification.lastSeq !== 'number') return;
    feed.announced = Math.max(feed.announced, notification.lastSeq);
    // A catch-up that failed (database hiccup) tries again now.
    for (const subscriber of feed.behind) void this.#catchUp(feed, subscriber);
    if (feed.cursor === undefined || notification.lastSeq <= feed.cursor) return;
    const carried = carriedLines(notification);
    if (carried && carried[0]!.seq === feed.cursor + 1) this.#advance(feed, carried);
    else void this.#follow(feed);
  }

  /** Reads the run's lines after the shared cursor until every announced one was handed out: one read per notification. */
  async #follow(feed: RunFeed): Promise<void> {
    if (feed.reading) return;
    feed.reading = true;
    try {
      while (feed.cursor !== undefined && feed.cursor < feed.announced && feed.following.size > 0) {
        const lines = await this.#readLogLines(feed.runId, feed.cursor, this.#limits.pageSize);
        if (lines.length === 0) {
          // Announced but not there (a reconnect's guess): nothing more to read now.
          feed.announced = feed.cursor;
          break;
        }
        this.#advance(
          feed,
          lines.filter((line) => line.seq > feed.cursor!),
        );
      }
    } catch (error) {
      for (const subscriber of feed.following) subscriber.subscription.onError?.(error);
    } finally {
      feed.reading = false;
    }
  }

  /** Hands a batch that starts right after the shared cursor to every follower, from memory. */
  #advance(feed: RunFeed, lines: RunLogLine[]): void {
    const last = lines[lines.length - 1];
    if (!last) return;
    feed.cursor = last.seq;
    for (const subscriber of feed.following) {
      // A follower that joined ahead of the cursor skips what its catch-up already gave it.
      const batch =
        subscriber.position < lines[0]!.seq ? lines : lines.filter((line) => line.seq > subscriber.position);
      if (batch.length === 0) continue;
      subscriber.position = last.seq;
      try {
        // Live deliveries are synchronous for a well-behaved subscriber: no promise per subscriber then.
        const delivered = subscriber.subscription.onLines(batch, true);
        if (delivered) delivered.catch((error: unknown) => subscriber.subscription.onError?.(error));
      } catch (error) {
        subscriber.subscription.onError?.(error);
      }
    }
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

  #handleLostConnection(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    client.end().catch(() => undefined);
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#reconnectTimer || this.#feeds.size === 0) return;
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      if (this.#feeds.size === 0) return;
      this.#connect().then(
        () => this.#readWhatWasMissed(),
        () => this.#scheduleReconnect(),
      );
    }, RECONNECT_DELAY_MS);
  }

  // Notifications sent while the connection was down are lost: read every run up to its end.
  #readWhatWasMissed(): void {
    for (const feed of this.#feeds.values()) {
      feed.announced = Number.MAX_SAFE_INTEGER;
      void this.#follow(feed);
      for (const subscriber of feed.behind) void this.#catchUp(feed, subscriber);
    }
  }

  async #disconnect(): Promise<void> {
    clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
    await this.#connecting?.catch(() => undefined);
    // A new subscriber may have arrived while the connection was still opening: keep it then.
    const client = this.#client;
    if (!client || this.#feeds.size > 0) return;
    this.#client = undefined;
    await client.end().catch(() => undefined);
  }
}

function parseNotification(payload: string | undefined): Notification {
  try {
    return JSON.parse(payload ?? '{}') as Notification;
  } catch {
    return {};
  }
}

/** The lines a notification carries, numbered; undefined when it carries none (they did not fit). */
function carriedLines(notification: Notification): RunLogLine[] | undefined {
  const { firstSeq, lastSeq, lines } = notification;
  if (typeof firstSeq !== 'number' || !Array.isArray(lines) || lines.length !== lastSeq! - firstSeq + 1)
    return undefined;
  if (!lines.every((line) => typeof line === 'string')) return undefined;
  return lines.map((line, index) => ({ seq: firstSeq + index, line }));
}
