import type pg from 'pg';

/**
 * One statement on the pool, bounded by `signal` (a request's deadline): not sent once it has passed;
 * when it passes while the statement runs, the statement is cancelled on the server (`pg_cancel_backend`,
 * from another connection of the pool), so the database does not work on for an answer no one waits
 * for, and its connection is given up at once (closed, never reused: a cancel that arrives late must
 * not stop the next statement on it). Rejects with the signal's reason once it has passed.
 */
export async function boundedQuery<Row extends pg.QueryResultRow>(
  pool: pg.Pool,
  text: string,
  values: unknown[],
  signal: AbortSignal,
): Promise<pg.QueryResult<Row>> {
  signal.throwIfAborted();
  const client = await pool.connect();
  let released = false;
  const release = (destroy?: true) => {
    if (released) return;
    released = true;
    client.release(destroy);
  };
  const abandon = () => {
    const backend = (client as pg.PoolClient & { processID: number | null }).processID;
    pool.query('SELECT pg_cancel_backend($1)', [backend]).catch(() => undefined);
    release(true);
  };
  signal.addEventListener('abort', abandon, { once: true });
  try {
    // It may have passed while the pool had no free connection.
    signal.throwIfAborted();
    return await client.query<Row>(text, values);
  } catch (error) {
    throw signal.aborted ? signal.reason : error;
  } finally {
    signal.removeEventListener('abort', abandon);
    release();
  }
}
