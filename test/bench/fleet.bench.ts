import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { loginToken, spawnNodeProcess, type FunctionProcess } from '../support/function-servers.ts';
import { measureThroughput } from './http-load.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';

// Authenticated, answered by the resources function without the cluster or the database.
const WHOAMI = '/api/v1alpha1/auth/whoami';
const ROUNDS = 3;
// The fleet adds a process hop and the functions-framework server (itself a fraction of node:http);
// the floor catches a gateway that buffers or opens a connection per request.
const MIN_RATIO = 0.05;
/** Issue 25: the gateway hop costs at most 25 % against the same replica reached directly. */
const MIN_HOP_RATIO = 0.75;

/** The port of the fleet's `resources` replica: the child process of the fleet started with `--target=resources`. */
function resourcesReplicaPort(fleetPid: number): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const parent = /^PPid:\s+(\d+)$/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1];
      if (Number(parent) !== fleetPid) continue;
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const port = args.find((arg) => arg.startsWith('--port='));
      if (args.includes('--target=resources') && port) return Number(port.slice('--port='.length));
    } catch {
      // A process that ended while being read.
    }
  }
  throw new Error('the fleet runs no resources replica');
}

/** Waits until `url` answers 200 to the token (30 s at most). */
async function untilAnswered(url: string, token: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await fetch(url, { headers: { authorization: `Bearer ${token}` } })).status !== 200) {
    if (Date.now() > deadline) throw new Error(`${url} gave no 200 within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Requests per second through the fleet (gateway process forwarding over HTTP to a
 * functions-framework process) beside the in-process `npm start` gateway, both running at once
 * and loaded in turn; the best round of each counts.
 */
export const fleetHop: Benchmark = async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'platform-api-fleet-bench-'));
  const password = 'bench password';
  const common = { API_BASE_URL: 'http://bench.local', LOG_LEVEL: 'warn' };
  const started: FunctionProcess[] = [];
  try {
    const gateway = await spawnNodeProcess(
      'infra/development/gateway/local-gateway.ts',
      {
        ...common,
        ADMIN_ACCOUNT_PASSWORD_HASH: bcrypt.hashSync(password, 10).replace(/^\$2b\$/, '$2a$'),
        ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: 'b'.repeat(64),
      },
      '/healthz',
    );
    started.push(gateway);
    // The fleet's functions read the generated secret folder (password "admin").
    const fleet = await spawnNodeProcess(
      'infra/development/fleet/fleet-main.ts',
      { ...common, NODE_ENV: 'development', LOCAL_DATA_DIR: dataDir },
      '/readyz',
      { startTimeoutMs: 120_000 },
    );
    started.push(fleet);
    const fleetToken = await loginToken(fleet.url, 'admin');
    // The public /readyz is one function's (the gateway sends probes to public-config); the
    // resources replica is ready for the gateway once its first check passed.
    await untilAnswered(`${fleet.url}${WHOAMI}`, fleetToken);
    const subjects = [
      { name: 'fleet', url: fleet.url, token: fleetToken, best: 0 },
      { name: 'in-process', url: gateway.url, token: await loginToken(gateway.url, password), best: 0 },
      // The same replica the fleet's gateway forwards to, reached directly: what the gateway hop costs.
      {
        name: 'replica',
        url: `http://127.0.0.1:${resourcesReplicaPort(fleet.child.pid!)}`,
        token: fleetToken,
        best: 0,
      },
    ];
    for (let round = 0; round <= ROUNDS; round++) {
      for (const subject of subjects) {
        const perSecond = await measureThroughput(
          `${subject.url}${WHOAMI}`,
          { authorization: `Bearer ${subject.token}` },
          { seconds: round === 0 ? 1 : 2 },
        ).catch((error: Error) => {
          throw new Error(`${subject.name}, round ${round}: ${error.message}`);
        });
        // Round 0 warms both up and does not count.
        if (round > 0) subject.best = Math.max(subject.best, perSecond);
      }
    }
    const [throughFleet, inProcess, replica] = subjects;
    const ratio = throughFleet!.best / inProcess!.best;
    const row: BenchRow = {
      name: 'authenticated GET through the fleet (gateway + function process)',
      value: throughFleet!.best,
      unit: 'req/s',
      baselineName: 'npm start gateway (in-process)',
      baselineValue: inProcess!.best,
      ratio,
      target: `>= ${MIN_RATIO}`,
      met: ratio >= MIN_RATIO,
    };
    const hopRatio = throughFleet!.best / replica!.best;
    return [
      row,
      {
        name: 'authenticated GET through the fleet gateway',
        value: throughFleet!.best,
        unit: 'req/s',
        baselineName: 'the same functions-framework replica reached directly',
        baselineValue: replica!.best,
        ratio: hopRatio,
        target: `>= ${MIN_HOP_RATIO}`,
        met: hopRatio >= MIN_HOP_RATIO,
      },
    ];
  } finally {
    await Promise.all(started.map((child) => child.stop()));
    await rm(dataDir, { recursive: true, force: true });
  }
};
