// Issue 35: run history that lasts, measured (`npm run bench -- run-history`, `-- run-history --quick`
// for a smoke run). On one embedded PostgreSQL, 10^7 lines of generated Terraform/OpenTofu output
// (terraform-output.ts: no two lines equal) are appended through the controller's chunk route of a
// real internal-function process, as several controllers do, in runs of varied length with one of
// 100,000 lines. Then, each beside a baseline measured in the same run:
// - the codecs (gzip, brotli, zstd) on 1,000-line blocks of that text;
// - bytes stored per line: the rows (today's layout) and the compacted blocks, against the raw text;
// - a page of 1,000 lines at the start, middle and end of the 100,000-line run, and its whole replay
//   through a real run-logs process (time, bytes sent), compacted against the rows as today reads them;
// - a live page (the last lines of a running run), the new reader against today's statement;
// - appends through the chunk route while a compaction pass and a retention pass run (in a process of
//   their own, as a resources replica runs them), against rounds with no pass: throughput and p99.
// docs/run-history.md carries the table and the capacity model built from it.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import type pg from 'pg';
import { startEmbeddedDatabase } from '../../infra/development/database/embedded-database.ts';
import { createDatabasePool } from '../../shared/database/database-pool.ts';
import { migrate } from '../../shared/database/migrate.ts';
import type { RunLogLine } from '../../shared/runs/run.ts';
import { RunStore } from '../../shared/runs/run-store.ts';
import { adminClaims, adminEnv, signToken } from '../support/admin-fixtures.ts';
import { type FunctionProcess, REPO_ROOT, spawnNodeProcess } from '../support/function-servers.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';
import { percentile } from './http-load.ts';
import type { MaintainerAnswer, MaintainerRequest } from './servers/run-history-maintainer.ts';
import { terraformRunOutput } from './terraform-output.ts';

const QUICK = process.argv.includes('--quick');
const SIZES = QUICK
  ? { totalLines: 300_000, longRun: 20_000, roundMs: 3_000, codecLines: 50_000, retentionRuns: 20 }
  : { totalLines: 10_000_000, longRun: 100_000, roundMs: 8_000, codecLines: 200_000, retentionRuns: 400 };
const CONTROLLERS = 8;
const CHUNK_LINES = 500;
const PAGE_LINES = 1_000;
const PAGE_SAMPLES = QUICK ? 50 : 200;
const REPLAYS = 3;
/** Lines per run in the side-by-side rounds: runs end often, so each round leaves finished runs to compact. */
const ROUND_RUN_LINES = 20_000;
const API_BASE_URL = 'https://platform-api.bench';
const PROJECT = 'bench';
const DAY_MS = 86_400_000;

const TARGETS = {
  compactedBytes: 0.25,
  page: 1,
  replay: 2,
  passP99: 1.5,
  throughput: 0.9,
  livePage: 1.25,
};

/** Lines per run for the load: the long run first, then lengths from 500 to 12,000 (5,000 on average). */
function runLengths(): number[] {
  const lengths = [SIZES.longRun];
  let total = SIZES.longRun;
  for (let run = 1; total < SIZES.totalLines; run++) {
    const length = Math.min(500 + ((run * 7_919) % 9_000) + ((run * 104_729) % 2_000), SIZES.totalLines - total);
    lengths.push(length);
    total += length;
  }
  return lengths;
}

/** A keep-alive JSON client of the internal function, as a controller is. */
class ControllerClient {
  readonly #agent = new Agent({ keepAlive: true, maxSockets: CONTROLLERS * 2 });
  readonly #url: URL;
  readonly #token: string;

  constructor(url: string, token: string) {
    this.#url = new URL(url);
    this.#token = token;
  }

  post(path: string, body: unknown): Promise<{ status: number; body: any }> {
    const payload = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const outgoing = request(
        {
          host: this.#url.hostname,
          port: this.#url.port,
          path,
          method: 'POST',
          agent: this.#agent,
          headers: {
            authorization: `Bearer ${this.#token}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : {} }));
        },
      );
      outgoing.on('error', reject);
      outgoing.end(payload);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

/** One chunk's append: when it was sent (ms, this process's clock) and how long its answer took. */
interface ChunkTiming {
  at: number;
  ms: number;
}

/** Runs on which controllers append: created in the database, claimed and driven through the internal routes. */
class RunLoad {
  readonly #store: RunStore;
  readonly #client: ControllerClient;
  #runs = 0;
  lines = 0;
  rawBytes = 0;
  readonly timings: ChunkTiming[] = [];

  constructor(store: RunStore, client: ControllerClient) {
    this.#store = store;
    this.#client = client;
  }

  /** A run of `lines` generated lines appended in chunks through the route, then finished; resolves to its id. */
  async run(length: number, stop: () => boolean = () => false): Promise<string> {
    const index = this.#runs++;
    const workspace = `w-${index}`;
    await this.#store.createRun({
      project: PROJECT,
      workspace,
      type: 'apply',
      principal: 'admin',
      principalType: 'admin',
    });
    const claimed = await this.#client.post('/internal/runs/claim', { project: PROJECT, workspace, leaseSeconds: 600 });
    if (claimed.status !== 200) throw new Error(`claim answered ${claimed.status}: ${JSON.stringify(claimed.body)}`);
    const runId: string = claimed.body.run.id;
    const leaseId: string = claimed.body.lease.id;
    const text = terraformRunOutput(index, length, this.lines);
    for (let offset = 0; offset < text.length && !stop(); offset += CHUNK_LINES) {
      const lines = text.slice(offset, offset + CHUNK_LINES);
      const at = performance.now();
      const answer = await this.#client.post(`/internal/runs/${runId}/logs`, { leaseId, firstSeq: offset + 1, lines });
      this.timings.push({ at, ms: performance.now() - at });
      if (answer.status !== 200) throw new Error(`chunk answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      this.lines += lines.length;
      for (const line of lines) this.rawBytes += Buffer.byteLength(line);
    }
    const finished = await this.#client.post(`/internal/runs/${runId}/phase`, { leaseId, phase: 'Succeeded' });
    if (finished.status !== 200) throw new Error(`finish answered ${finished.status}`);
    return runId;
  }

  /** `CONTROLLERS` controllers taking the next length off `lengths` until none is left (or `stop()`). */
  async drive(lengths: number[], stop: () => boolean = () => false): Promise<string[]> {
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: CONTROLLERS }, async () => {
        for (let length = lengths.shift(); length !== undefined && !stop(); length = lengths.shift())
          ids.push(await this.run(length, stop));
      }),
    );
    return ids;
  }
}

/** The maintenance process (servers/run-history-maintainer.ts): one pass per request. */
class Maintainer {
  readonly #child: ChildProcess;

  private constructor(child: ChildProcess) {
    this.#child = child;
  }

  static async start(databaseUrl: string): Promise<Maintainer> {
    const child = spawn(process.execPath, ['test/bench/servers/run-history-maintainer.ts'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    await new Promise((resolve) => child.once('message', resolve));
    return new Maintainer(child);
  }

  pass(request: MaintainerRequest): Promise<MaintainerAnswer> {
    return new Promise((resolve) => {
      this.#child.once('message', (answer) => resolve(answer as MaintainerAnswer));
      this.#child.send(request);
    });
  }

  stop(): void {
    this.#child.disconnect();
  }
}

const round = (value: number, digits = 3): number => Number(value.toFixed(digits));
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** One row, its ratio and whether its target is met (`atMost`: lower is better). */
function compared(
  name: string,
  value: number,
  unit: string,
  baselineName: string,
  baselineValue: number,
  target?: { atMost?: number; atLeast?: number },
): BenchRow {
  const ratio = value / baselineValue;
  const met =
    target === undefined ? undefined : target.atMost !== undefined ? ratio <= target.atMost : ratio >= target.atLeast!;
  return {
    name,
    value: round(value),
    unit,
    baselineName,
    baselineValue: round(baselineValue),
    ratio: round(ratio),
    ...(target ? { target: target.atMost !== undefined ? `<= ${target.atMost}` : `>= ${target.atLeast}`, met } : {}),
  };
}

/** The codecs on 1,000-line blocks of the generated text: size against the text, and speed each way. */
function codecRows(): BenchRow[] {
  const blocks: Buffer[] = [];
  for (let run = 0, line = 0; line < SIZES.codecLines; run++) {
    const text = terraformRunOutput(1_000_000 + run, 5_000, 1e9 + line);
    for (let offset = 0; offset < text.length; offset += 1_000)
      blocks.push(Buffer.from(text.slice(offset, offset + 1_000).join('\u0000')));
    line += text.length;
  }
  const raw = blocks.reduce((total, block) => total + block.length, 0);
  const codecs: Array<[string, (block: Buffer) => Buffer, (body: Buffer) => Buffer]> = [
    ['gzip (level 6)', (block) => zlib.gzipSync(block), (body) => zlib.gunzipSync(body)],
    [
      'brotli (quality 11, the default)',
      (block) => zlib.brotliCompressSync(block, { params: { [zlib.constants.BROTLI_PARAM_SIZE_HINT]: block.length } }),
      (body) => zlib.brotliDecompressSync(body),
    ],
    [
      'brotli (quality 6)',
      (block) =>
        zlib.brotliCompressSync(block, {
          params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 6, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: block.length },
        }),
      (body) => zlib.brotliDecompressSync(body),
    ],
    ...[3, 6, 9].map((level): [string, (block: Buffer) => Buffer, (body: Buffer) => Buffer] => [
      `zstd (level ${level}${level === 6 ? ', written' : ''})`,
      (block) => zlib.zstdCompressSync(block, { params: { [zlib.constants.ZSTD_c_compressionLevel]: level } }),
      (body) => zlib.zstdDecompressSync(body),
    ]),
  ];
  const rows: BenchRow[] = [];
  for (const [name, compress, decompress] of codecs) {
    let started = performance.now();
    const bodies = blocks.map(compress);
    const compressMs = performance.now() - started;
    started = performance.now();
    for (const body of bodies) decompress(body);
    const decompressMs = performance.now() - started;
    const size = bodies.reduce((total, body) => total + body.length, 0);
    rows.push(
      compared(
        `codec ${name}: size of 1,000-line blocks`,
        size / blocks.length,
        'B/block',
        'the text',
        raw / blocks.length,
      ),
      { name: `codec ${name}: compression`, value: round(raw / 1e6 / (compressMs / 1000), 1), unit: 'MB/s' },
      { name: `codec ${name}: decompression`, value: round(raw / 1e6 / (decompressMs / 1000), 1), unit: 'MB/s' },
    );
  }
  return rows;
}

/** Bytes a table takes with its TOAST and indexes. */
async function tableBytes(pool: pg.Pool, table: string): Promise<number> {
  const { rows } = await pool.query<{ bytes: string }>('SELECT pg_total_relation_size($1::regclass) AS bytes', [table]);
  return Number(rows[0]!.bytes);
}

/** p50 of `samples` timings of `read` (after a few to warm up). */
async function pageP50(read: () => Promise<unknown>): Promise<number> {
  for (let warm = 0; warm < 5; warm++) await read();
  const timings: number[] = [];
  for (let sample = 0; sample < PAGE_SAMPLES; sample++) {
    const started = performance.now();
    await read();
    timings.push(performance.now() - started);
  }
  return median(timings);
}

/** Today's read of a page: what RunStore.readLogLines did before issue 35, its statement over the rows. */
async function todaysPage(pool: pg.Pool, runId: string, afterSeq: number, limit: number): Promise<RunLogLine[]> {
  const { rows } = await pool.query<{ seq: string; line: string }>(
    'SELECT seq, line FROM run_log_lines WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
    [runId, afterSeq, limit],
  );
  return rows.map((row) => ({ seq: Number(row.seq), line: row.line }));
}

/** The whole stream of a finished run through the run-logs process: ms to its `end`, and bytes sent. */
async function replay(runLogs: FunctionProcess, token: string, runId: string): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  const response = await fetch(`${runLogs.url}/api/v1alpha1/run-logs/${PROJECT}/${runId}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = Buffer.from(await response.arrayBuffer());
  const ms = performance.now() - started;
  if (!body.toString('utf8').includes('event: end')) throw new Error('the replay did not end with event: end');
  return { ms, bytes: body.length };
}

/** Median replay of `REPLAYS`. */
async function replays(runLogs: FunctionProcess, token: string, runId: string): Promise<{ ms: number; bytes: number }> {
  const all = [];
  for (let time = 0; time < REPLAYS; time++) all.push(await replay(runLogs, token, runId));
  return { ms: median(all.map((one) => one.ms)), bytes: all[0]!.bytes };
}

type RoundKind = 'no pass' | 'compaction' | 'retention';

/**
 * Appends through the route for `SIZES.roundMs` while the round's pass runs (if any); the chunks sent
 * while it ran are the round's samples (all of them without a pass).
 */
async function sideBySideRound(
  load: RunLoad,
  maintainer: Maintainer,
  kind: RoundKind,
  retentionRuns: () => Promise<void>,
): Promise<{ latencies: number[]; linesPerSecond: number; pass?: MaintainerAnswer }> {
  if (kind === 'retention') await retentionRuns();
  const from = load.timings.length;
  const linesBefore = load.lines;
  const started = performance.now();
  let stopping = false;
  // Without a pass the round lasts its time; with one, as long as the pass.
  const stop = () => stopping || (kind === 'no pass' && performance.now() - started > SIZES.roundMs);
  const driving = load.drive(
    Array.from({ length: 1_000 }, () => ROUND_RUN_LINES),
    stop,
  );
  const pass =
    kind === 'no pass'
      ? undefined
      : await maintainer.pass(
          kind === 'compaction'
            ? { pass: 'compaction' }
            : { pass: 'retention', historyMs: 365 * DAY_MS, logMs: 90 * DAY_MS },
        );
  const passEnd = performance.now();
  if (pass) stopping = true;
  await driving;
  const elapsed = (performance.now() - started) / 1000;
  const timings = load.timings.slice(from).filter((timing) => !pass || timing.at <= passEnd);
  const measuredSeconds = pass ? (passEnd - started) / 1000 : elapsed;
  const lines = pass ? timings.length * CHUNK_LINES : load.lines - linesBefore;
  return {
    latencies: timings.map((timing) => timing.ms).sort((a, b) => a - b),
    linesPerSecond: lines / measuredSeconds,
    ...(pass ? { pass } : {}),
  };
}

export const runHistoryBenchmark: Benchmark = async () => {
  const rows: BenchRow[] = codecRows();
  const dataDir = await mkdtemp(join(tmpdir(), 'platform-api-bench-run-history-'));
  const server = await startEmbeddedDatabase({ dataDir });
  const pool = createDatabasePool(server.connectionString, () => undefined, {
    connectionTimeoutMillis: 30_000,
    query_timeout: 1_200_000,
    max: 4,
  });
  const processes: FunctionProcess[] = [];
  let maintainer: Maintainer | undefined;
  let client: ControllerClient | undefined;
  try {
    await migrate(pool);
    const store = new RunStore(pool);
    const token = await signToken(adminClaims(API_BASE_URL));
    const env = (target: string) =>
      adminEnv({ FUNCTION_TARGET: target, API_BASE_URL, DATABASE_URL: server.connectionString, LOG_LEVEL: 'warn' });
    const internal = await spawnNodeProcess('knative/server.ts', env('internal'), '/readyz', { discardStdout: true });
    const runLogs = await spawnNodeProcess('knative/server.ts', env('run-logs'), '/readyz', { discardStdout: true });
    processes.push(internal, runLogs);
    maintainer = await Maintainer.start(server.connectionString);
    client = new ControllerClient(internal.url, token);
    const load = new RunLoad(store, client);

    // The load: 10^7 lines through the chunk route, today's path (nothing compacts meanwhile).
    process.stderr.write(`  loading ${SIZES.totalLines.toLocaleString('en')} lines...\n`);
    const loadStarted = performance.now();
    const runIds = await load.drive(runLengths());
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    // The first run taken is the long one (its Workspace w-0).
    const longRunId = (
      await pool.query<{ id: string }>(`SELECT id FROM runs WHERE workspace = 'w-0' AND project = $1`, [PROJECT])
    ).rows[0]!.id;
    const lines = load.lines;
    const rawPerLine = load.rawBytes / lines;
    await pool.query('ANALYZE');
    const livePerLine = (await tableBytes(pool, 'run_log_lines')) / lines;
    rows.push(
      {
        name: `load: ${lines.toLocaleString('en')} lines, ${runIds.length.toLocaleString('en')} runs, through the chunk route (${CONTROLLERS} controllers, chunks of ${CHUNK_LINES})`,
        value: round(lines / loadSeconds, 0),
        unit: 'lines/s',
      },
      compared(
        'stored bytes per line, live rows (today: run_log_lines with its key)',
        livePerLine,
        'B/line',
        'the raw text',
        rawPerLine,
      ),
    );

    // Reads of the long run as rows: today's page statement, and the replay through the stream.
    const positions = { start: 0, middle: SIZES.longRun / 2 - PAGE_LINES / 2, end: SIZES.longRun - PAGE_LINES };
    const rowPages: Record<string, number> = {};
    for (const [where, afterSeq] of Object.entries(positions))
      rowPages[where] = await pageP50(() => todaysPage(pool, longRunId, afterSeq, PAGE_LINES));
    const rowReplay = await replays(runLogs, token, longRunId);

    // Compaction of everything, by the maintenance process.
    process.stderr.write('  compacting...\n');
    const compaction = await maintainer.pass({ pass: 'compaction' });
    const vacuumStarted = performance.now();
    await pool.query('VACUUM run_log_lines');
    const vacuumSeconds = (performance.now() - vacuumStarted) / 1000;
    await pool.query('ANALYZE');
    const compactedPerLine = (await tableBytes(pool, 'run_log_blocks')) / lines;
    rows.push(
      {
        name: `compaction pass of ${compaction.report.lines!.toLocaleString('en')} lines (${compaction.report.blocks!.toLocaleString('en')} blocks), one process`,
        value: round(compaction.report.lines! / (compaction.ms / 1000), 0),
        unit: 'lines/s',
      },
      { name: 'VACUUM run_log_lines after it (what autovacuum does next)', value: round(vacuumSeconds, 1), unit: 's' },
      compared(
        'stored bytes per line, compacted (run_log_blocks with TOAST and key)',
        compactedPerLine,
        'B/line',
        'the raw text',
        rawPerLine,
        {
          atMost: TARGETS.compactedBytes,
        },
      ),
      compared('stored bytes per line, compacted', compactedPerLine, 'B/line', 'live rows', livePerLine),
    );

    for (const [where, afterSeq] of Object.entries(positions)) {
      const compactedPage = await pageP50(() => store.readLogLines(longRunId, afterSeq, PAGE_LINES));
      rows.push(
        compared(
          `page of ${PAGE_LINES.toLocaleString('en')} lines at the ${where} of a ${SIZES.longRun.toLocaleString('en')}-line finished log, compacted (RunStore.readLogLines), p50`,
          compactedPage,
          'ms',
          "the same page as rows, today's statement",
          rowPages[where]!,
          { atMost: TARGETS.page },
        ),
      );
    }
    const blockReplay = await replays(runLogs, token, longRunId);
    rows.push(
      compared(
        `whole replay of the ${SIZES.longRun.toLocaleString('en')}-line log through the run-logs stream, compacted (median of ${REPLAYS})`,
        blockReplay.ms,
        'ms',
        'the same replay from the rows',
        rowReplay.ms,
        { atMost: TARGETS.replay },
      ),
      compared('bytes sent by that replay, compacted', blockReplay.bytes, 'B', 'from the rows', rowReplay.bytes),
    );

    // Side by side: appends with no pass, during a compaction pass, during a retention pass.
    process.stderr.write('  side-by-side rounds...\n');
    const expiring = runIds.filter((id) => id !== longRunId);
    const retentionRuns = async () => {
      // Half the next runs' logs past RUN_LOG_RETENTION, half the runs past RUN_HISTORY_RETENTION.
      const batch = expiring.splice(0, SIZES.retentionRuns * 2);
      await pool.query(
        `UPDATE runs SET finished_at = now() - CASE WHEN id = ANY($1::uuid[]) THEN interval '100 days' ELSE interval '400 days' END
         WHERE id = ANY($2::uuid[])`,
        [batch.slice(0, SIZES.retentionRuns), batch],
      );
    };
    const kinds: RoundKind[] = [
      'no pass',
      'compaction',
      'no pass',
      'retention',
      'no pass',
      'compaction',
      'no pass',
      'retention',
      'no pass',
    ];
    const results: Record<RoundKind, { latencies: number[]; throughput: number[]; passMs: number[] }> = {
      'no pass': { latencies: [], throughput: [], passMs: [] },
      compaction: { latencies: [], throughput: [], passMs: [] },
      retention: { latencies: [], throughput: [], passMs: [] },
    };
    // A warm-up round: runs finish in it, so the first compaction round has work.
    await sideBySideRound(load, maintainer, 'no pass', retentionRuns);
    for (const kind of kinds) {
      const result = await sideBySideRound(load, maintainer, kind, retentionRuns);
      results[kind].latencies.push(...result.latencies);
      results[kind].throughput.push(result.linesPerSecond);
      if (result.pass) results[kind].passMs.push(result.pass.ms);
    }
    const baseline = results['no pass'];
    baseline.latencies.sort((a, b) => a - b);
    for (const kind of ['compaction', 'retention'] as const) {
      const during = results[kind];
      during.latencies.sort((a, b) => a - b);
      rows.push(
        compared(
          `p99 of a chunk append (${CHUNK_LINES} lines) while a ${kind} pass runs (${during.latencies.length} chunks, passes of ${during.passMs.map((ms) => round(ms / 1000, 1)).join(', ')} s)`,
          percentile(during.latencies, 0.99),
          'ms',
          `no pass (${baseline.latencies.length} chunks)`,
          percentile(baseline.latencies, 0.99),
          { atMost: TARGETS.passP99 },
        ),
        compared(
          `append throughput through the chunk route while a ${kind} pass runs (median of rounds)`,
          median(during.throughput),
          'lines/s',
          "no pass: today's path (median of rounds)",
          median(baseline.throughput),
          { atLeast: TARGETS.throughput },
        ),
      );
    }

    // A live page: the last lines of a running run, the new reader against today's statement.
    const live = await store.createRun({
      project: PROJECT,
      workspace: 'live',
      type: 'apply',
      principal: 'admin',
      principalType: 'admin',
    });
    await store.appendLogLines(live.id, terraformRunOutput(99, 5_000, 2e9));
    const newReader = await pageP50(() => store.readLogLines(live.id, 4_500, 500));
    const todaysReader = await pageP50(() => todaysPage(pool, live.id, 4_500, 500));
    rows.push(
      compared(
        'live page: the last 500 lines of a running run (rows), RunStore.readLogLines, p50',
        newReader,
        'ms',
        "today's statement",
        todaysReader,
        { atMost: TARGETS.livePage },
      ),
    );
    return rows;
  } catch (error) {
    for (const child of processes) process.stderr.write(child.output().slice(-3_000));
    throw error;
  } finally {
    client?.close();
    maintainer?.stop();
    await Promise.all(processes.map((child) => child.stop()));
    await pool.end();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
};
