// Issue 10: 2,000 concurrent run-log streams on one run-logs bundle: memory per stream and the
// delay from a log append to its arrival on every stream (issue 14 reworks the fan-out; this
// measures what there is).
import { request, type IncomingMessage } from 'node:http';
import { RunStore } from '../../shared/runs/run-store.ts';
import { spawnNodeProcess, type FunctionProcess } from '../support/function-servers.ts';
import { startTestDatabase } from '../runs/test-database.ts';
import { percentile } from './http-load.ts';
import { bundleSetup, pause, ratioRow, residentKb, type BundleSetup } from './bundle-setup.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';

const STREAMS = 2_000;
/** How long an append may take to reach every stream before the rest count as this late. */
const DELIVERY_BOUND_MS = 60_000;
const APPENDS = 3;
/** Longer than any marker. */
const MARKER_OVERLAP = 64;

/** One open run-log stream, noting when each awaited marker arrives. */
interface OpenStream {
  arrivals: Map<string, number>;
  response: IncomingMessage;
}

function openStream(url: string, token: string, markers: string[]): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, agent: false }, (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`run-log stream answered ${response.statusCode}`));
        response.resume();
        return;
      }
      const stream: OpenStream = { arrivals: new Map(), response };
      response.setEncoding('utf8');
      // A marker may straddle two chunks: search each behind the end of the one before.
      let carried = '';
      response.on('data', (chunk: string) => {
        const text = carried + chunk;
        for (const marker of markers) if (!stream.arrivals.has(marker) && text.includes(marker)) stream.arrivals.set(marker, performance.now());
        carried = text.slice(-MARKER_OVERLAP);
      });
      response.on('error', () => undefined);
      resolve(stream);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** Waits until every stream has seen the marker, or the bound passed; returns how many have. */
async function waitForAll(streams: OpenStream[], marker: string, boundMs = DELIVERY_BOUND_MS): Promise<number> {
  const deadline = Date.now() + boundMs;
  const arrived = () => streams.filter((stream) => stream.arrivals.has(marker)).length;
  while (arrived() < streams.length && Date.now() < deadline) await pause(20);
  return arrived();
}

/**
 * 2,000 concurrent run-log streams on one run-logs bundle: memory per stream above the process
 * with one stream open, the p99 delay from a log append to its arrival on every stream (beside
 * the same with one stream), and memory per stream once each has carried 100 KB more log.
 */
async function runLogStreams(setup: BundleSetup): Promise<BenchRow[]> {
  const database = await startTestDatabase();
  let server: FunctionProcess | undefined;
  const streams: OpenStream[] = [];
  try {
    const store = new RunStore(database.pool);
    const run = await store.createRun({ project: 'bench', workspace: 'ws', type: 'apply', principal: 'admin', principalType: 'admin' });
    await store.appendLogLines(run.id, ['first line']);
    server = await spawnNodeProcess(setup.bundleEntry, { ...setup.env, FUNCTION_TARGET: 'run-logs', DATABASE_URL: database.connectionString }, '/healthz', { discardStdout: true });
    const url = `${server.url}/api/v1alpha1/run-logs/bench/${run.id}`;
    const appends = Array.from({ length: APPENDS }, (_, index) => `delivery-marker-${index}`);
    const markers = ['first line', 'single-stream-marker', ...appends, 'last-of-the-long-log'];

    // A delivery that has not come within the bound counts as the bound (the p99 is then at least that).
    const delay = async (targets: OpenStream[], marker: string) => {
      const appendedAt = performance.now();
      await store.appendLogLines(run.id, [marker]);
      await waitForAll(targets, marker);
      return targets.map((stream) => (stream.arrivals.get(marker) ?? appendedAt + DELIVERY_BOUND_MS) - appendedAt);
    };
    const opened = async (batch: OpenStream[]) => {
      if ((await waitForAll(batch, 'first line')) < batch.length) throw new Error('a run-log stream did not send the stored line within the bound');
    };

    const first = await openStream(url, setup.token, markers);
    streams.push(first);
    await opened(streams);
    const singleDelays = await delay([first], 'single-stream-marker');
    await pause(1_000);
    const oneStreamKb = residentKb(server.child.pid!);

    // Opened in batches so that the listen backlog never overflows.
    while (streams.length < STREAMS + 1) {
      const batch = await Promise.all(Array.from({ length: Math.min(200, STREAMS + 1 - streams.length) }, () => openStream(url, setup.token, markers)));
      streams.push(...batch);
      await opened(batch);
    }
    await pause(2_000);
    const openKb = residentKb(server.child.pid!);

    const delays: number[] = [];
    for (const marker of appends) delays.push(...(await delay(streams, marker)));

    // 100 KB more log through every stream: a stream that kept what it sent would grow by as much.
    const longLine = 'x'.repeat(200);
    for (let batch = 0; batch < 5; batch++) await store.appendLogLines(run.id, Array.from({ length: 100 }, () => longLine));
    await store.appendLogLines(run.id, ['last-of-the-long-log']);
    const longLogArrived = await waitForAll(streams, 'last-of-the-long-log');
    await pause(2_000);
    const afterLogKb = residentKb(server.child.pid!);

    const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
    return [
      { name: 'run-logs bundle RSS with one stream open (the idle level)', value: oneStreamKb / 1024, unit: 'MB' },
      { name: `memory per stream, ${STREAMS} concurrent run-log streams, above that level`, value: (openKb - oneStreamKb) / STREAMS, unit: 'KB', target: '<= 20 KB', met: (openKb - oneStreamKb) / STREAMS <= 20 },
      {
        name: `memory per stream after 100 KB more log (through ${longLogArrived} of ${streams.length} streams within ${DELIVERY_BOUND_MS / 1000} s)`,
        value: (afterLogKb - oneStreamKb) / STREAMS,
        unit: 'KB',
        target: '<= 20 KB',
        met: (afterLogKb - oneStreamKb) / STREAMS <= 20,
      },
      ratioRow(
        `p99 append to arrival on ${STREAMS} streams (${APPENDS} appends; ${delays.filter((ms) => ms < DELIVERY_BOUND_MS).length} of ${delays.length} within ${DELIVERY_BOUND_MS / 1000} s)`,
        percentile(sorted(delays), 0.99),
        'ms',
        'one stream',
        percentile(sorted(singleDelays), 0.99),
        '',
      ),
    ];
  } finally {
    for (const stream of streams) stream.response.destroy();
    await server?.stop();
    await database.destroy();
  }
}

export const runLogStreamsBenchmark: Benchmark = async () => runLogStreams(await bundleSetup());
