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
import { createDatabasePool } from '../../shared/base/database/database-pool.ts';
import { migrate } from '../../shared/base/database/migrate.ts';
import type { RunLogLine } from '../../shared/domain/runs/run.ts';
import { MAX_BLOCK_LINES } from '../../shared/domain/runs/logs/run-log-blocks.ts';
import { testRuns, type TestRuns } from '../support/test-runs.ts';
import { adminClaims, adminEnv, signToken } from '../support/admin-fixtures.ts';
import { type FunctionProcess, REPO_ROOT, spawnNodeProcess } from '../support/function-servers.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';
import { percentile } from './http-load.ts';
import type { MaintainerAnswer, MaintainerRequest } from './servers/run-history-maintainer.ts';
import { terraformRunOutput } from './terraform-output.ts';

const QUICK = process.argv.includes('--quick');
const SIZES = QUICK
  ? { totalLines: 300_000, longRun: 20_000, roundMs: 3_000, codecLines: 50_000, retentionRuns: 4 }
  : { totalLines: 10_000_000, longRun: 100_000, roundMs: 8_000, codecLines: 200_000, retentionRuns: 100 };
const CONTROLLERS = 8;
const CHUNK_LINES = 1_000;
const PAGE_LINES = 1_000;
const PAGE_SAMPLES = QUICK ? 50 : 200;
const REPLAYS = 5;
/** Rounds of each kind (no pass, compaction, no pass, retention), in turns. */
const ROUND_REPEATS = 3;
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

  /** 503s (a database connection the loaded machine took too long to give) answered as a controller does: again, after a second. */
  retries = 0;

  async post(path: string, body: unknown): Promise<{ status: number; body: any }> {
    for (;;) {
      const answer = await this.#send(path, body);
      if (answer.status !== 503 || this.retries >= 100) return answer;
      this.retries++;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }

  #send(path: string, body: unknown): Promise<{ status: number; body: any }> {
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
  readonly #store: TestRuns;
  readonly #client: ControllerClient;
  #runs = 0;
  #nextId = 0;
  lines = 0;
  rawBytes = 0;
  readonly timings: ChunkTiming[] = [];

  constructor(store: TestRuns, client: ControllerClient) {
    this.#store = store;
    this.#client = client;
  }

  /**
   * A run of `length` generated lines appended in chunks through the route, then finished (unless
   * `keepRunning`); resolves to its id. `ids` chooses where its lines' ids start (by default, after
   * every line generated so far: no two lines of the load are equal).
   */
  async run(
    length: number,
    options: { stop?: () => boolean; keepRunning?: boolean; seed?: number; ids?: number } = {},
  ): Promise<string> {
    const index = this.#runs++;
    const workspace = `w-${index}`;
    const firstId = options.ids ?? this.#nextId;
    if (options.ids === undefined) this.#nextId += length;
    await this.#store.records.createRun({
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
    const text = terraformRunOutput(options.seed ?? index, length, firstId);
    for (let offset = 0; offset < text.length && !options.stop?.(); offset += CHUNK_LINES) {
      const lines = text.slice(offset, offset + CHUNK_LINES);
      const at = performance.now();
      const answer = await this.#client.post(`/internal/runs/${runId}/logs`, { leaseId, firstSeq: offset + 1, lines });
      this.timings.push({ at, ms: performance.now() - at });
      if (answer.status !== 200) throw new Error(`chunk answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      this.lines += lines.length;
      for (const line of lines) this.rawBytes += Buffer.byteLength(line);
    }
    if (options.keepRunning) return runId;
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
          ids.push(await this.run(length, { stop }));
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

/** A codec as the bench compares them: its name, and both ways on one block. */
type Codec = [name: string, compress: (block: Buffer) => Buffer, decompress: (body: Buffer) => Buffer];

const zstd = (level: number): Codec => [
  `zstd (level ${level}${level === 9 ? ', written' : ''})`,
  (block) => zlib.zstdCompressSync(block, { params: { [zlib.constants.ZSTD_c_compressionLevel]: level } }),
  (body) => zlib.zstdDecompressSync(body),
];
const brotli = (quality: number): Codec => [
  `brotli (quality ${quality}${quality === 11 ? ', the default' : ''})`,
  (block) =>
    zlib.brotliCompressSync(block, {
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: block.length },
    }),
  (body) => zlib.brotliDecompressSync(body),
];
const CODECS: Codec[] = [
  ['gzip (level 6, the default)', (block) => zlib.gzipSync(block), (body) => zlib.gunzipSync(body)],
  brotli(11),
  brotli(5),
  zstd(3),
  zstd(6),
  zstd(9),
];

/**
 * The codecs on blocks of the generated text as compaction writes them (MAX_BLOCK_LINES lines):
 * size against the text, and the speed of each way (the fastest of three rounds; brotli's default
 * quality, slow, on an eighth of the blocks).
 */
function codecRows(): BenchRow[] {
  const blocks: Buffer[] = [];
  for (let run = 0, line = 0; line < SIZES.codecLines; run++) {
    const text = terraformRunOutput(1_000_000 + run, 5_000, 2 ** 41 + line);
    for (let offset = 0; offset < text.length; offset += MAX_BLOCK_LINES)
      blocks.push(Buffer.from(text.slice(offset, offset + MAX_BLOCK_LINES).join('\u0000')));
    line += text.length;
  }
  const rows: BenchRow[] = [];
  for (const [name, compress, decompress] of CODECS) {
    const sample = name.includes('quality 11') ? blocks.slice(0, blocks.length / 8) : blocks;
    const raw = sample.reduce((total, block) => total + block.length, 0);
    const fastest = (work: () => void) => {
      let best = Number.POSITIVE_INFINITY;
      for (let round = 0; round < (sample === blocks ? 3 : 1); round++) {
        const started = performance.now();
        work();
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };
    let bodies: Buffer[] = [];
    const compressMs = fastest(() => {
      bodies = sample.map(compress);
    });
    const decompressMs = fastest(() => {
      for (const body of bodies) decompress(body);
    });
    const size = bodies.reduce((total, body) => total + body.length, 0);
    rows.push(
      compared(
        `codec ${name}: size of ${MAX_BLOCK_LINES}-line blocks`,
        size / sample.length,
        'B/block',
        'the text',
        raw / sample.length,
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

/**
 * p50 of `read` and of `baseline`, sampled in turns (`PAGE_SAMPLES` each, after a few to warm up),
 * so that the load of a shared machine falls on both alike.
 */
async function pairedP50(read: () => Promise<unknown>, baseline: () => Promise<unknown>): Promise<[number, number]> {
  for (let warm = 0; warm < 5; warm++) await Promise.all([read(), baseline()]);
  const timings: [number[], number[]] = [[], []];
  for (let sample = 0; sample < PAGE_SAMPLES; sample++) {
    // Each goes first every other time: neither pays alone for what the one before left.
    for (const index of sample % 2 === 0 ? [0, 1] : [1, 0]) {
      const started = performance.now();
      await (index === 0 ? read : baseline)();
      timings[index]!.push(performance.now() - started);
    }
  }
  return [median(timings[0]), median(timings[1])];
}

/** Today's read of a page: what TestRuns.readLogLines did before issue 35, its statement over the rows. */
async function todaysPage(pool: pg.Pool, runId: string, afterSeq: number, limit: number): Promise<RunLogLine[]> {
  const { rows } = await pool.query<{ seq: string; line: string }>(
    'SELECT seq, line FROM run_log_lines WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
    [runId, afterSeq, limit],
  );
  return rows.map((row) => ({ seq: Number(row.seq), line: row.line }));
}

/**
 * The stream of a run through the run-logs process until line `lastSeq` arrived: ms, and bytes
 * sent until then (the compacted run is finished, its twin of rows is still running).
 */
async function replay(
  runLogs: FunctionProcess,
  token: string,
  runId: string,
  lastSeq: number,
): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  const response = await fetch(`${runLogs.url}/api/v1alpha1/run-logs/${PROJECT}/${runId}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const reader = response.body!.getReader();
  const last = Buffer.from(`id: ${lastSeq}\n`);
  let bytes = 0;
  let tail = Buffer.alloc(0);
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream of ${runId} ended before line ${lastSeq}`);
    bytes += value.length;
    tail = Buffer.concat([tail.subarray(-last.length), value]);
    if (tail.includes(last)) break;
  }
  const ms = performance.now() - started;
  await reader.cancel();
  return { ms, bytes };
}

/** Median of `REPLAYS` replays of each run, in turns. */
async function pairedReplays(
  runLogs: FunctionProcess,
  token: string,
  runIds: [string, string],
  lastSeq: number,
): Promise<[{ ms: number; bytes: number }, { ms: number; bytes: number }]> {
  const all: [{ ms: number; bytes: number }[], { ms: number; bytes: number }[]] = [[], []];
  for (let time = 0; time < REPLAYS; time++)
    for (const [index, runId] of runIds.entries()) all[index]!.push(await replay(runLogs, token, runId, lastSeq));
  const pick = (replays: { ms: number; bytes: number }[]) => ({
    ms: median(replays.map((one) => one.ms)),
    bytes: replays[0]!.bytes,
  });
  return [pick(all[0]), pick(all[1])];
}

type RoundKind = 'no pass' | 'compaction' | 'retention';

/** What one side-by-side round measured: latencies of the chunks sent while its passes ran (all without). */
interface RoundResult {
  latencies: number[];
  linesPerSecond: number;
  passMs: number[];
}

/**
 * Appends through the route for `SIZES.roundMs`. In a pass round the maintenance process runs its
 * passes back to back meanwhile: compaction, paced as in production, of the next runs that finished
 * (as many as there are controllers; a short rest when none had), or retention of the next batch of
 * expired runs (`expireNext` prepares it; false when none is left). Its samples are the chunks sent
 * while a pass ran.
 */
async function sideBySideRound(
  load: RunLoad,
  maintainer: Maintainer,
  kind: RoundKind,
  expireNext: () => Promise<boolean>,
): Promise<RoundResult> {
  const from = load.timings.length;
  const linesBefore = load.lines;
  const started = performance.now();
  const over = () => performance.now() - started > SIZES.roundMs;
  let passing = false;
  // The appends go on until the round's time is over and no pass is under way.
  const driving = load.drive(
    Array.from({ length: 1_000 }, () => ROUND_RUN_LINES),
    () => over() && !passing,
  );
  const passes: Array<{ from: number; to: number; ms: number }> = [];
  while (kind !== 'no pass' && !over()) {
    if (kind === 'retention' && !(await expireNext())) break;
    const passStarted = performance.now();
    passing = true;
    const answer = await maintainer.pass(
      kind === 'compaction'
        ? { pass: 'compaction', paced: true, maxRuns: CONTROLLERS }
        : { pass: 'retention', historyMs: 365 * DAY_MS, logMs: 90 * DAY_MS },
    );
    passing = false;
    if (kind === 'compaction' && answer.report.lines === 0) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    passes.push({ from: passStarted, to: performance.now(), ms: answer.ms });
  }
  await driving;
  const seconds = (performance.now() - started) / 1000;
  const during = (at: number) => kind === 'no pass' || passes.some((pass) => at >= pass.from && at <= pass.to);
  return {
    latencies: load.timings
      .slice(from)
      .filter((timing) => during(timing.at))
      .map((timing) => timing.ms),
    linesPerSecond: (load.lines - linesBefore) / seconds,
    passMs: passes.map((pass) => pass.ms),
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
    const store = testRuns(pool);
    const token = await signToken(adminClaims(API_BASE_URL));
    const env = (target: string) =>
      adminEnv({ FUNCTION_TARGET: target, API_BASE_URL, DATABASE_URL: server.connectionString, LOG_LEVEL: 'warn' });
    const internal = await spawnNodeProcess('knative/server.ts', env('internal'), '/readyz', { discardStdout: true });
    const runLogs = await spawnNodeProcess('knative/server.ts', env('run-logs'), '/readyz', { discardStdout: true });
    processes.push(internal, runLogs);
    maintainer = await Maintainer.start(server.connectionString);
    client = new ControllerClient(internal.url, token);
    const load = new RunLoad(store, client);

    // The load: 10^7 lines through the chunk route, today's path (nothing compacts meanwhile). The long
    // run has a twin of rows kept running (the same output, other ids), the baseline of the reads.
    process.stderr.write(`  loading ${SIZES.totalLines.toLocaleString('en')} lines...\n`);
    const loadStarted = performance.now();
    const lengths = runLengths();
    const [longRun, twin] = await Promise.all([
      load.run(lengths.shift()!, { seed: 0 }),
      load.run(SIZES.longRun, { seed: 0, ids: 2 ** 40, keepRunning: true }),
    ]);
    const runIds = await load.drive(lengths);
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const lines = load.lines;
    const rawPerLine = load.rawBytes / lines;
    await pool.query('ANALYZE');
    const livePerLine = (await tableBytes(pool, 'run_log_lines')) / lines;
    rows.push(
      {
        name: `load: ${lines.toLocaleString('en')} lines, ${(runIds.length + 2).toLocaleString('en')} runs, through the chunk route (${CONTROLLERS} controllers, chunks of ${CHUNK_LINES}; ${client.retries} answers 503 retried)`,
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

    // Compaction of everything finished, by the maintenance process.
    process.stderr.write('  compacting...\n');
    const compaction = await maintainer.pass({ pass: 'compaction', paced: false });
    const vacuumStarted = performance.now();
    await pool.query('VACUUM run_log_lines');
    const vacuumSeconds = (performance.now() - vacuumStarted) / 1000;
    await pool.query('ANALYZE');
    const compactedLines = compaction.report.lines!;
    const compactedPerLine = (await tableBytes(pool, 'run_log_blocks')) / compactedLines;
    rows.push(
      {
        name: `compaction of the backlog: ${compactedLines.toLocaleString('en')} lines (${compaction.report.blocks!.toLocaleString('en')} blocks), one process, unpaced`,
        value: round(compactedLines / (compaction.ms / 1000), 0),
        unit: 'lines/s',
      },
      { name: 'VACUUM run_log_lines after it (what autovacuum does next)', value: round(vacuumSeconds, 1), unit: 's' },
      compared(
        'stored bytes per line, compacted (run_log_blocks with TOAST and key)',
        compactedPerLine,
        'B/line',
        'the raw text',
        rawPerLine,
        { atMost: TARGETS.compactedBytes },
      ),
      compared('stored bytes per line, compacted', compactedPerLine, 'B/line', 'live rows', livePerLine),
    );

    // Reads of the long run, compacted, against its twin of rows read as today.
    const positions = { start: 0, middle: SIZES.longRun / 2 - PAGE_LINES / 2, end: SIZES.longRun - PAGE_LINES };
    for (const [where, afterSeq] of Object.entries(positions)) {
      const [compacted, today] = await pairedP50(
        () => store.logs.readLogLines(longRun, afterSeq, PAGE_LINES),
        () => todaysPage(pool, twin, afterSeq, PAGE_LINES),
      );
      rows.push(
        compared(
          `page of ${PAGE_LINES.toLocaleString('en')} lines at the ${where} of a ${SIZES.longRun.toLocaleString('en')}-line finished log, compacted (TestRuns.readLogLines), p50`,
          compacted,
          'ms',
          'the same page of rows, as today reads it',
          today,
          { atMost: TARGETS.page },
        ),
      );
    }
    const [compactedReplay, rowsReplay] = await pairedReplays(runLogs, token, [longRun, twin], SIZES.longRun);
    rows.push(
      compared(
        `whole replay of the ${SIZES.longRun.toLocaleString('en')}-line log through the run-logs stream, compacted (median of ${REPLAYS})`,
        compactedReplay.ms,
        'ms',
        'the same replay of rows',
        rowsReplay.ms,
        { atMost: TARGETS.replay },
      ),
      compared('bytes sent by that replay, compacted', compactedReplay.bytes, 'B', 'of rows', rowsReplay.bytes),
    );
    const [newReader, todaysReader] = await pairedP50(
      () => store.logs.readLogLines(twin, SIZES.longRun - 500, 500),
      () => todaysPage(pool, twin, SIZES.longRun - 500, 500),
    );
    rows.push(
      compared(
        'live page: the last 500 lines of a running run (rows), TestRuns.readLogLines, p50',
        newReader,
        'ms',
        'as today reads it',
        todaysReader,
        { atMost: TARGETS.livePage },
      ),
    );

    // Side by side: appends with no pass, during a compaction pass, during a retention pass.
    process.stderr.write('  side-by-side rounds...\n');
    // The loaded runs, a share for each retention round; each pass removes the logs of
    // `retentionRuns` of them (past RUN_LOG_RETENTION) and as many runs (past RUN_HISTORY_RETENTION).
    const expiring = [...runIds];
    const share = Math.ceil(expiring.length / ROUND_REPEATS);
    let roundShare: string[] = [];
    const expireNext = async () => {
      const batch = roundShare.splice(0, SIZES.retentionRuns * 2);
      if (batch.length === 0) return false;
      await pool.query(
        `UPDATE runs SET finished_at = now() - CASE WHEN id = ANY($1::uuid[]) THEN interval '100 days' ELSE interval '400 days' END
         WHERE id = ANY($2::uuid[])`,
        [batch.slice(0, SIZES.retentionRuns), batch],
      );
      return true;
    };
    const kinds: RoundKind[] = ['no pass', 'compaction', 'no pass', 'retention'];
    const results: Record<RoundKind, { latencies: number[]; throughput: number[]; passMs: number[] }> = {
      'no pass': { latencies: [], throughput: [], passMs: [] },
      compaction: { latencies: [], throughput: [], passMs: [] },
      retention: { latencies: [], throughput: [], passMs: [] },
    };
    // A warm-up round: runs finish in it, so the first compaction round has work.
    await sideBySideRound(load, maintainer, 'no pass', expireNext);
    for (let repeat = 0; repeat < ROUND_REPEATS; repeat++) {
      for (const kind of kinds) {
        if (kind === 'retention') roundShare = expiring.splice(0, share);
        const result = await sideBySideRound(load, maintainer, kind, expireNext);
        results[kind].latencies.push(...result.latencies);
        results[kind].throughput.push(result.linesPerSecond);
        results[kind].passMs.push(...result.passMs);
      }
    }
    const baseline = results['no pass'];
    baseline.latencies.sort((a, b) => a - b);
    for (const kind of ['compaction', 'retention'] as const) {
      const during = results[kind];
      during.latencies.sort((a, b) => a - b);
      rows.push(
        compared(
          `p99 of a chunk append (${CHUNK_LINES} lines) while ${kind} passes run (${during.latencies.length} chunks, ${during.passMs.length} passes, ${round(during.passMs.reduce((total, ms) => total + ms, 0) / 1000, 1)} s)`,
          percentile(during.latencies, 0.99),
          'ms',
          `no pass (${baseline.latencies.length} chunks)`,
          percentile(baseline.latencies, 0.99),
          { atMost: TARGETS.passP99 },
        ),
      );
    }
    rows.push(
      compared(
        'append throughput through the chunk route while compaction passes run back to back (median of rounds)',
        median(results.compaction.throughput),
        'lines/s',
        "no pass: today's path (median of rounds)",
        median(baseline.throughput),
        { atLeast: TARGETS.throughput },
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
