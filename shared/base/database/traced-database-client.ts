import pg from 'pg';
import {
  bindToActiveContext,
  markFailed,
  SpanKind,
  startChildSpan,
  traceParentOf,
  type Attributes,
  type Span,
} from '../tracing/tracing.ts';

/**
 * The pool and client classes of a pool whose queries are CLIENT spans (only made with tracing
 * on): `<operation>` (`SELECT`, `INSERT`, `BEGIN`, ...) with `db.system.name=postgresql`,
 * `db.operation.name`, the database and the server. Never the statement's values, nor its text.
 * The pool hands a connection to a query from whatever freed one: the pool here runs the query's
 * callback in the context of the request that asked, so the span is that request's child.
 * A write carries its span's trace context to the server as a trailing SQL comment holding
 * `traceparent='00-…'` (sqlcommenter's form): a trigger that records work for later reads it
 * with `current_query()` (the outbox, migration 015), so that work joins the trace of the change.
 */
export function tracedPoolClasses(connectionString: string): {
  Pool: typeof pg.Pool;
  Client: typeof pg.Client;
} {
  const connection = connectionAttributes(connectionString);
  class TracedClient extends pg.Client {}
  setMethod(TracedClient, 'query', function tracedQuery(this: pg.Client, ...args: unknown[]): unknown {
    const [statement] = args;
    // A Submittable (a cursor, a stream) reports its own end: passed through untraced.
    if (typeof (statement as { submit?: unknown } | undefined)?.submit === 'function')
      return pg.Client.prototype.query.apply(this, args as never);
    const described = querySpan(statement, connection);
    const span = startChildSpan(described);
    if (span.isRecording() && WRITES.has(described.attributes['db.operation.name'] as string))
      args[0] = withTraceComment(statement, traceParentOf(span));
    const last = args.at(-1);
    if (typeof last === 'function') {
      args[args.length - 1] = (error: unknown, result: unknown) => {
        endQuerySpan(span, error);
        return (last as (error: unknown, result: unknown) => unknown)(error, result);
      };
      return pg.Client.prototype.query.apply(this, args as never);
    }
    return (pg.Client.prototype.query.apply(this, args as never) as unknown as Promise<unknown>).then(
      (result) => {
        endQuerySpan(span, undefined);
        return result;
      },
      (error: unknown) => {
        endQuerySpan(span, error);
        throw error;
      },
    );
  });
  class TracedPool extends pg.Pool {}
  setMethod(TracedPool, 'connect', function boundConnect(this: pg.Pool, ...args: unknown[]): unknown {
    const [callback] = args;
    if (typeof callback !== 'function') return pg.Pool.prototype.connect.apply(this, args as never);
    return pg.Pool.prototype.connect.call(
      this,
      bindToActiveContext(callback as (...args: never[]) => unknown) as never,
    );
  });
  return { Pool: TracedPool, Client: TracedClient };
}

// pg's overloaded signatures do not survive a subclass's override; the method is set on the subclass's prototype.
function setMethod(target: { prototype: object }, name: string, method: (...args: unknown[]) => unknown): void {
  Object.defineProperty(target.prototype, name, { value: method, writable: true, configurable: true });
}

function querySpan(statement: unknown, connection: Attributes) {
  const text = typeof statement === 'string' ? statement : (statement as { text?: unknown } | undefined)?.text;
  const operation = typeof text === 'string' ? operationOf(text) : undefined;
  return {
    name: operation ?? 'postgresql',
    kind: SpanKind.CLIENT,
    attributes: { ...connection, ...(operation ? { 'db.operation.name': operation } : {}) },
  };
}

/** The operations that may fire a trigger recording work for later (a CTE may hold a write). */
const WRITES = new Set(['INSERT', 'UPDATE', 'DELETE', 'WITH']);

/** The statement with its trace context in a trailing comment (the values stay parameters, apart from the text). */
function withTraceComment(statement: unknown, traceParent: string): unknown {
  const comment = `\n/*traceparent='${traceParent}'*/`;
  if (typeof statement === 'string') return statement + comment;
  const config = statement as { text: string; name?: string };
  // A named (prepared) statement must keep its text from one call to the next.
  if (config.name !== undefined) return statement;
  return { ...config, text: config.text + comment };
}

/** The statement's first keyword (`SELECT`, `WITH`, `LISTEN`): a bounded name, unlike the text. */
function operationOf(text: string): string | undefined {
  return /^\s*(?:--[^\n]*\n\s*)*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase();
}

function endQuerySpan(span: Span, error: unknown): void {
  if (error !== undefined && error !== null) {
    // PostgreSQL's SQLSTATE (`23505`, `57P01`): what failed, without the message, which may quote a value.
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') span.setAttribute('db.response.status_code', code);
    markFailed(span, error);
  }
  span.end();
}

function connectionAttributes(connectionString: string): Attributes {
  const attributes: Attributes = { 'db.system.name': 'postgresql' };
  try {
    const url = new URL(connectionString);
    const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
    if (database) attributes['db.namespace'] = database;
    if (url.protocol !== 'socket:' && url.hostname) {
      attributes['server.address'] = url.hostname.replace(/^\[|\]$/g, '');
      attributes['server.port'] = Number(url.port) || 5432;
    }
  } catch {
    // Checked at start (DATABASE_URL); nothing more to tell than the system.
  }
  return attributes;
}
