import { Agent, request } from 'node:http';
import autocannon from 'autocannon';

export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Every request's latency, ascending (for percentiles over several loads). */
  latenciesMs: number[];
  statuses: Record<number, number>;
}

export interface LoadOptions {
  method?: string;
  headers?: Record<string, string> | ((client: number) => Record<string, string>);
  concurrency: number;
  durationMs: number;
  /** Stops early once this many requests were sent (a bound on the loop, whatever the speed). */
  maxRequests?: number;
  /** Pause between a client's requests, for measuring latency at a modest rate instead of saturation. */
  pauseMs?: number;
}

/** Drives `concurrency` keep-alive clients against a URL for a bounded time and count. */
export async function runLoad(url: string, options: LoadOptions): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  const maxRequests = options.maxRequests ?? 1_000_000;
  const started = performance.now();
  const deadline = started + options.durationMs;
  let sent = 0;
  const client = async (index: number) => {
    const headers = typeof options.headers === 'function' ? options.headers(index) : options.headers;
    while (performance.now() < deadline && sent < maxRequests) {
      sent++;
      const begin = performance.now();
      const status = await send(url, options.method ?? 'GET', headers ?? {}, agent);
      latencies.push(performance.now() - begin);
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (options.pauseMs) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, index) => client(index)));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    requestsPerSecond: latencies.length / elapsed,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    latenciesMs: latencies,
    statuses,
  };
}

/** The value at quantile q of an ascending array. */
export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function send(url: string, method: string, headers: Record<string, string>, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, headers, agent }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/**
 * Saturation throughput with autocannon (a fast HTTP/1.1 client), so the server, not the client,
 * is what is measured. Requests are pipelined one at a time per keep-alive connection.
 */
export async function measureThroughput(
  url: string,
  headers: Record<string, string>,
  options: { connections?: number; seconds?: number; expectedStatus?: number } = {},
): Promise<number> {
  return (await measureLoad(url, headers, options)).perSecond;
}

/** `measureThroughput`'s load, answering the requests answered in all and per second. */
export async function measureLoad(
  url: string,
  headers: Record<string, string>,
  options: {
    connections?: number;
    seconds?: number;
    expectedStatus?: number;
    method?: string;
    body?: string;
    /** Requests per second over all connections; unset: as fast as the server answers. */
    rate?: number;
  } = {},
): Promise<{ perSecond: number; total: number }> {
  const result = await autocannon({
    url,
    headers,
    ...(options.rate ? { overallRate: options.rate } : {}),
    ...(options.method ? { method: options.method as autocannon.Request['method'] } : {}),
    ...(options.body !== undefined ? { body: options.body } : {}),
    connections: options.connections ?? 32,
    duration: options.seconds ?? 3,
  });
  // A load of refusals (the audit benchmark) expects its one status; every other load expects 2xx only.
  const unexpected =
    options.expectedStatus === undefined
      ? result.non2xx
      : result.requests.total -
        ((result.statusCodeStats as Record<string, { count?: number }> | undefined)?.[String(options.expectedStatus)]
          ?.count ?? 0);
  if (unexpected > 0 || result.errors > 0)
    throw new Error(
      `throughput run against ${url} saw ${unexpected} unexpected answers and ${result.errors} errors ` +
        `(answers by status: ${JSON.stringify(result.statusCodeStats)})`,
    );
  return { perSecond: result.requests.average, total: result.requests.total };
}
