// Issue 12, end to end: two replicas of the reference controller (each its own OS process) drive
// 200 runs through two internal-function processes on one real PostgreSQL, while the run-logs
// function streams every run. One replica is killed mid-run; its runs are finished by the other.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubernetesRestClient } from '../../../shared/base/kubernetes/kubernetes-rest-client.ts';
import { ClusterObjects } from '../../../shared/domain/resources/cluster-objects.ts';
import { installPlatformCrds } from '../../../shared/domain/resources/platform-crds.ts';
import { VARIABLE_SET, WORKSPACE } from '../../../shared/contract/kinds/platform-kinds.ts';
import { testRuns, type TestRuns } from '../../support/test-runs.ts';
import type { Run } from '../../../shared/domain/runs/run.ts';
import { adminClaims, adminEnv, signToken } from '../../support/admin-fixtures.ts';
import { REPO_ROOT, silentLogger, spawnFunctionProcess, type FunctionProcess } from '../../support/function-servers.ts';
import { startIdentityCluster, TEST_NAMESPACE, type IdentityCluster } from '../../support/identity-cluster.ts';
import type { ControllerEvent } from '../../../infra/development/controller/reference-controller.ts';
import { readEvents, type SseEvent } from '../../support/server-sent-events.ts';
import { startTestDatabase, type TestDatabase } from '../../support/test-database.ts';

const GROUP = 'platform.dev';
const PROJECT = 'replicas';
const WORKSPACES = ['network', 'database', 'cluster', 'dns'];
const RUNS = 200;
const STEPS = 2;
const LINES_PER_STEP = 3;
// Renewed every third of it; short, so the killed replica's runs come back soon.
const LEASE_SECONDS = 5;
const API_BASE_URL = 'https://platform-api.test';
const STREAMS_OPENED_AT_ONCE = 10;
// Three processes starting at once on a busy machine may take a while; this only bounds a hang.
const PROCESS_START_TIMEOUT_MS = 45_000;
// Generous: the whole scenario takes seconds; this only bounds a hang.
const SCENARIO_TIMEOUT_MS = 90_000;

interface Replica {
  name: string;
  user: string;
  child: ChildProcess;
  events: ControllerEvent[];
  exited: Promise<unknown>;
}

let database: TestDatabase;
let cluster: IdentityCluster;
let store: TestRuns;
let folder: string;
const functions: FunctionProcess[] = [];
const replicas: Replica[] = [];

beforeAll(async () => {
  [database, cluster] = await Promise.all([startTestDatabase(), startIdentityCluster({ tls: true })]);
  store = testRuns(database.pool);
  await installPlatformCrds(cluster.emulator.kubeConfig(), GROUP);
  await cluster.emulator
    .kubeConfig()
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name: PROJECT } } });
  const objects = new ClusterObjects(new KubernetesRestClient(cluster.emulator.kubeConfig(), silentLogger), GROUP);
  await objects.send({
    method: 'POST',
    path: objects.platformPath(VARIABLE_SET, { namespace: PROJECT }),
    body: {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'VariableSet',
      metadata: { name: 'shared' },
      spec: { variables: [{ name: 'region', value: 'eu-west-1' }] },
    },
  });
  for (const name of WORKSPACES) {
    const spec = {
      source: { repository: 'https://git.example.com/infra.git' },
      tool: { name: 'opentofu', version: '1.8.2' },
      variableSetRefs: [{ name: 'shared' }],
    };
    await objects.send({
      method: 'POST',
      path: objects.platformPath(WORKSPACE, { namespace: PROJECT }),
      body: { apiVersion: `${GROUP}/v1alpha1`, kind: 'Workspace', metadata: { name }, spec },
    });
  }
  for (const name of ['controller-a', 'controller-b']) {
    await cluster.createServiceAccount(name);
    await cluster.allowPaths(name, ['/internal', '/internal/*'], ['get', 'post']);
  }
  folder = await mkdtemp(join(tmpdir(), 'controller-replicas-'));
  const kubeConfigFile = join(folder, 'kubeconfig');
  await writeFile(kubeConfigFile, cluster.emulator.kubeConfigYaml(), { mode: 0o600 });
  // One watcher (the admin) streams every run at once: more than the default per-principal stream cap.
  const env = adminEnv({
    DATABASE_URL: database.connectionString,
    KUBECONFIG: kubeConfigFile,
    SERVICE_ACCOUNT_ISSUERS: cluster.emulator.serviceAccountIssuer,
    API_BASE_URL,
    LOG_LEVEL: 'warn',
    RUN_LOG_MAX_STREAMS_PER_PRINCIPAL: '1000',
  });
  functions.push(
    ...(await Promise.all(
      ['internal', 'internal', 'run-logs'].map((target) =>
        spawnFunctionProcess({ ...env, FUNCTION_TARGET: target }, { startTimeoutMs: PROCESS_START_TIMEOUT_MS }),
      ),
    )),
  );
}, 90_000);

afterAll(async () => {
  for (const replica of replicas) replica.child.kill('SIGKILL');
  await Promise.all(functions.map((process) => process.stop()));
  await Promise.all([database?.destroy(), cluster?.close()]);
  if (folder) await rm(folder, { recursive: true, force: true });
});

async function startReplica(
  name: string,
  internalUrl: string,
  pace: { stepDelayMs: number; concurrency: number },
): Promise<Replica> {
  const child = spawn(process.execPath, ['test/support/reference-controller-process.ts'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH,
      INTERNAL_URL: internalUrl,
      CONTROLLER_TOKEN: await cluster.mintToken(name),
      LEASE_SECONDS: String(LEASE_SECONDS),
      CONCURRENCY: String(pace.concurrency),
      STEPS: String(STEPS),
      LINES_PER_STEP: String(LINES_PER_STEP),
      STEP_DELAY_MS: String(pace.stepDelayMs),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const replica: Replica = {
    name,
    user: `system:serviceaccount:${TEST_NAMESPACE}:${name}`,
    child,
    events: [],
    exited: new Promise((resolve) => child.once('close', resolve)),
  };
  let pending = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString('utf8')).split('\n');
    pending = lines.pop()!;
    for (const line of lines) if (line) replica.events.push(JSON.parse(line) as ControllerEvent);
  });
  replicas.push(replica);
  return replica;
}

/** Watches one run's log stream on the run-logs function until `event: end`. */
function watch(runId: string, token: string): { opened: Promise<Response>; events: Promise<SseEvent[]> } {
  const opened = fetch(`${functions[2]!.url}/api/v1alpha1/run-logs/${PROJECT}/${runId}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const events = opened.then(async (response) => {
    if (response.status !== 200)
      throw new Error(`stream of ${runId} answered ${response.status}: ${await response.text()}`);
    return readEvents(response, (seen) => seen.some((event) => event.event === 'end'));
  });
  // Failures surface when the test awaits `events`.
  events.catch(() => undefined);
  return { opened, events };
}

async function until(condition: () => Promise<boolean> | boolean, what: () => string): Promise<void> {
  const deadline = Date.now() + SCENARIO_TIMEOUT_MS;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

type RunEvent = Extract<ControllerEvent, { runId: string }>;
const eventsOf = (replica: Replica, kind: RunEvent['event'], runId?: string): RunEvent[] =>
  replica.events.filter(
    (event): event is RunEvent => event.event === kind && (runId === undefined || (event as RunEvent).runId === runId),
  );

describe("Two controller replicas against two internal-function processes and one database: every run executed exactly once, a killed controller's run finished by the other, retried appends never duplicated, every stream sees every line once in order", () => {
  it(
    `executes ${RUNS} runs`,
    async () => {
      const runs: Run[] = [];
      for (let i = 0; i < RUNS; i++) {
        runs.push(
          await store.records.createRun({
            project: PROJECT,
            workspace: WORKSPACES[i % WORKSPACES.length]!,
            type: i % 2 ? 'apply' : 'plan',
            principal: 'admin',
            principalType: 'admin',
            message: `run ${i}`,
          }),
        );
      }
      const admin = await signToken(adminClaims(API_BASE_URL));
      const streams: Array<Promise<SseEvent[]>> = [];
      // A few at a time, as browsers would open them, so the streams start from line 1 before any controller runs.
      for (let i = 0; i < runs.length; i += STREAMS_OPENED_AT_ONCE) {
        const opened = runs.slice(i, i + STREAMS_OPENED_AT_ONCE).map((run) => watch(run.id, admin));
        await Promise.all(opened.map((stream) => stream.opened));
        streams.push(...opened.map((stream) => stream.events));
      }

      // The victim pauses between steps, so a run it has written lines for is still in its hands when it dies.
      const victim = await startReplica('controller-a', functions[0]!.url, { stepDelayMs: 1_000, concurrency: 6 });
      const survivor = await startReplica('controller-b', functions[1]!.url, { stepDelayMs: 5, concurrency: 6 });
      // Mid-run: the victim has finished some runs and holds at least one it has written lines for.
      const inHand = () =>
        eventsOf(victim, 'appended')
          .map((event) => event.runId)
          .filter((runId) => eventsOf(victim, 'finished', runId).length === 0);
      // The orphans are read from the database while the victim is stopped, not from the events it
      // printed (a line still in the pipe would count a run it finished as orphaned): the runs it
      // holds that have not ended. With none (it was between runs), it goes on and is looked at again.
      let orphans = new Set<string>();
      await until(
        async () => {
          if (!(eventsOf(victim, 'finished').length >= 3 && inHand().length > 0)) return false;
          victim.child.kill('SIGSTOP');
          const held = await database.pool.query(
            `SELECT id FROM runs WHERE project = $1 AND controller = $2 AND phase NOT IN ('Succeeded', 'Failed', 'Cancelled')`,
            [PROJECT, victim.user],
          );
          orphans = new Set(held.rows.map((row: { id: string }) => row.id));
          if (orphans.size === 0) victim.child.kill('SIGCONT');
          return orphans.size > 0;
        },
        () => `the victim to be mid-run; its last events: ${JSON.stringify(victim.events.slice(-3))}`,
      );
      victim.child.kill('SIGKILL');
      await victim.exited;

      const finalCount = async () =>
        (
          await database.pool.query(
            `SELECT count(*)::int AS n FROM runs WHERE project = $1 AND phase IN ('Succeeded', 'Failed', 'Cancelled')`,
            [PROJECT],
          )
        ).rows[0].n as number;
      await until(
        async () => (await finalCount()) === RUNS,
        () => 'every run to end',
      );
      const streamed = await Promise.all(streams);
      survivor.child.kill('SIGTERM');
      await survivor.exited;

      const finished = [...eventsOf(victim, 'finished'), ...eventsOf(survivor, 'finished')];
      for (const run of runs) {
        const stored = await store.records.getRun(PROJECT, run.id);
        const claims = [victim, survivor].flatMap((replica) =>
          eventsOf(replica, 'claimed', run.id).map((event) => ({
            replica,
            attempt: event.event === 'claimed' ? event.attempt : 0,
          })),
        );
        // Executed exactly once: the run Succeeded once, reported by one replica, from the attempt the database recorded last.
        // A replica killed between the server's answer and its report leaves no report, but its run is done.
        const reports = finished.filter((event) => event.runId === run.id);
        // That is the victim's alone: the database names it as the last controller, and it never said so.
        const unreportedByVictim =
          stored.controller === victim.user && eventsOf(victim, 'finished', run.id).length === 0;
        expect(reports.length, run.id).toBe(unreportedByVictim ? 0 : 1);
        expect(stored).toMatchObject({
          phase: 'Succeeded',
          message: run.message,
          statusMessage: `${STEPS} steps, 1 variables`,
        });
        // Two controllers never held the same lease: each attempt was claimed once.
        const attempts = claims.map(({ attempt }) => attempt);
        expect(new Set(attempts).size).toBe(attempts.length);
        expect(Math.max(...attempts)).toBeLessThanOrEqual(stored.attempts);
        if (reports.length === 1)
          expect(claims.find(({ attempt }) => attempt === stored.attempts)?.replica.user).toBe(stored.controller);
        if (orphans.has(run.id) && reports.length === 1) expect(stored.controller).toBe(survivor.user);

        // Retried appends never duplicate: gapless numbers, every line text once.
        const lines = await store.logs.readLogLines(run.id, 0, 5_000);
        expect(lines.map((line) => line.seq)).toEqual(lines.map((_, i) => i + 1));
        expect(new Set(lines.map((line) => line.line)).size).toBe(lines.length);
        const lastAttempt = lines.filter((line) => line.line.includes(`attempt ${stored.attempts} `));
        expect(lastAttempt).toHaveLength(STEPS * LINES_PER_STEP);

        // The stream saw every line once, in order, then the end.
        const events = streamed[runs.indexOf(run)]!;
        expect(events.slice(0, -1)).toEqual(lines.map((line) => ({ id: String(line.seq), data: line.line })));
        expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ phase: 'Succeeded' });
      }
      const appends = [...eventsOf(victim, 'appended'), ...eventsOf(survivor, 'appended')];
      expect(appends.filter((event) => event.event === 'appended' && event.duplicate).length).toBeGreaterThanOrEqual(
        (RUNS * STEPS) / 2,
      );
      expect([...orphans].some((runId) => eventsOf(survivor, 'finished', runId).length === 1)).toBe(true);
    },
    SCENARIO_TIMEOUT_MS * 2,
  );
});
