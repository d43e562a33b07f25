import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Environment } from '../../../shared/base/config/environment.ts';
import type { ClusterSettings, Settings } from '../../../shared/base/config/settings.ts';
import { createBridgeProxy } from '../gateway/bridge-proxy.ts';
import { openDatabase, type OpenDatabase } from '../../../shared/base/database/open-database.ts';
import { createFunctionGateway } from '../gateway/function-gateway.ts';
import { UpstreamPool } from '../gateway/upstream-pool.ts';
import { ensureAdminSecretFolder } from '../local/admin-secret-folder.ts';
import { startLocalCluster } from '../cluster/local-cluster.ts';
import { localDataPaths } from '../local/local-data.ts';
import { boundAddress } from '../local/local-bind-address.ts';
import { startDevelopmentDatabase } from '../database/development-database.ts';
import type { Logger } from '../../../shared/base/logging/logger.ts';
import { gatewayRules } from '../../../shared/contract/routes/gateway-routing.ts';
import { FUNCTION_NAMES, routeTable, type FunctionName } from '../../../shared/contract/routes/route-table.ts';
import { createLimitedHttpServer, drain, listen } from '../../../knative/node-http/limited-http-server.ts';
import { setUpCluster } from '../cluster/cluster-setup.ts';
import { gatewayTls } from '../gateway/gateway-tls.ts';
import { flushTraces, startTracing } from '../../../shared/base/tracing/start-tracing.ts';
import { FunctionReplica } from './function-replica.ts';
import { ConcurrencyLimit } from '../../../shared/domain/runs/concurrency-limit.ts';
import { replicaEnvironment } from './replica-environment.ts';
import { writeFleetEnvironmentFile } from './fleet-environment-file.ts';
import { kubeConfigFromFiles } from '../../../shared/base/config/kubeconfig-files.ts';

export interface FleetOptions {
  /** Processes per function. */
  replicas: number;
  /** The local state folder: the shared secret, the emulator's objects, the embedded database. */
  dataDir: string;
  /** LOCAL_HTTPS=true: the gateway serves HTTPS with a certificate made under `dataDir` (false when not given). */
  https?: boolean;
  logger: Logger;
  host?: string;
  /** How often the gateway checks each replica's `/readyz`. */
  healthCheckIntervalMs?: number;
  /** How long one replica may take to start. */
  startTimeoutMs?: number;
  /** Receives what a replica writes (its log lines). */
  onReplicaOutput?: (replica: FunctionReplica, text: string) => void;
}

export interface Fleet {
  url: string;
  port: number;
  /** The folder every process reads its admin settings from. */
  secretFolder: string;
  replicas: ReadonlyMap<FunctionName, readonly FunctionReplica[]>;
  pools: ReadonlyMap<FunctionName, UpstreamPool>;
  close(): Promise<void>;
}

/**
 * `npm run fleet`: every function as its own processes under the functions-framework CLI, behind
 * a gateway that routes by the chart's HTTPRoute rules. Like a deployment, they share one secret
 * source (a folder, generated once), one cluster (KUBECONFIG, else the built-in emulator over
 * the local state) and one database (DATABASE_URL, else the embedded one); the cluster is set up
 * once, before any function starts. The gateway serves by its own parsed `settings`; the replicas
 * are handed `environment` (that of the settings) to parse their own.
 */
export async function startFleet(settings: Settings, environment: Environment, options: FleetOptions): Promise<Fleet> {
  const { logger } = options;
  const config = settings.server;
  const paths = localDataPaths(options.dataDir);
  const cleanups: Array<() => Promise<unknown>> = [];
  const closeAll = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  try {
    const tls = await gatewayTls(settings, { dataDir: options.dataDir, https: options.https ?? false });
    if (await ensureAdminSecretFolder(paths.adminSecret))
      logger.info('generated the fleet\'s admin secret (password "admin")', { folder: paths.adminSecret });
    const kubeconfigPath = await connectFleetCluster(settings.cluster, paths.kubernetes, cleanups);
    await setUpCluster(kubeConfigFromFiles(kubeconfigPath), config.apiGroup, logger, {
      seedExample: settings.cluster.kubeconfig === undefined,
    });
    const database: OpenDatabase = await openDatabase({
      databaseUrl: settings.database.url,
      startEmbedded: () => startDevelopmentDatabase(paths.postgres),
      log: (line) => logger.info(line),
    });
    cleanups.push(() => database.close());

    await startTracing(settings.tracing, 'platform-api-gateway', logger);
    cleanups.push(() => flushTraces());
    const pools = new Map(FUNCTION_NAMES.map((name) => [name, new UpstreamPool(name, logger)]));
    const server = createLimitedHttpServer(
      config,
      createFunctionGateway(
        gatewayRules(routeTable(config.apiGroup)),
        pools,
        createBridgeProxy(config.bridgeUpstreamUrl, config),
        config,
      ),
      tls,
    );
    const port = await listen(server, config.port, options.host);
    cleanups.push(() => drain(server, 5_000));
    const scheme = tls ? 'https' : 'http';
    const url = `${scheme}://127.0.0.1:${port}`;

    const replicaEnv = replicaEnvironment(environment, {
      adminSecretFolder: paths.adminSecret,
      kubeconfigPath,
      databaseUrl: database.connectionString,
      gatewayUrl: `${scheme}://localhost:${port}`,
      corsAllowedOrigins: config.corsAllowedOrigins,
    });
    const joining = await writeFleetEnvironmentFile(options.dataDir, {
      ADMIN_SECRET_SOURCE: replicaEnv.ADMIN_SECRET_SOURCE!,
      API_BASE_URL: replicaEnv.API_BASE_URL!,
      KUBECONFIG: replicaEnv.KUBECONFIG!,
      DATABASE_URL: replicaEnv.DATABASE_URL!,
    });
    cleanups.push(joining.remove);
    const replicas = new Map<FunctionName, FunctionReplica[]>();
    const refresh = (name: FunctionName) => {
      const pool = pools.get(name)!;
      pool.setUpstreams(replicas.get(name)!.map((replica) => replica.url));
      void pool.checkAll();
    };
    for (const name of FUNCTION_NAMES) {
      replicas.set(
        name,
        Array.from(
          { length: options.replicas },
          (_, index) =>
            new FunctionReplica(name, index, replicaEnv, logger, {
              onOutput: (text) => options.onReplicaOutput?.(replicas.get(name)![index]!, text),
              onRestart: () => refresh(name),
            }),
        ),
      );
    }
    const all = [...replicas.values()].flat();
    cleanups.push(() => Promise.all(all.map((replica) => replica.stop())));
    const startTimeoutMs = options.startTimeoutMs ?? 60_000;
    // As many replicas start at once as there are CPUs: fifteen Node processes compiling at once on
    // two busy cores each took longer than the start timeout (issue 44, item 14), though one alone
    // starts in seconds; taking turns, each one's timeout measures its own start.
    const starting = new ConcurrencyLimit(availableParallelism());
    await Promise.all(
      all.map((replica) =>
        starting.run(() =>
          replica.start(startTimeoutMs).catch((error: Error) => {
            throw new Error(`${replica.name} replica ${replica.index} did not start: ${error.message}`);
          }),
        ),
      ),
    );
    for (const name of FUNCTION_NAMES) refresh(name);
    const healthChecks = setInterval(() => {
      for (const pool of pools.values()) void pool.checkAll();
    }, options.healthCheckIntervalMs ?? 2_000);
    cleanups.push(async () => clearInterval(healthChecks));
    // "fleet listening" means every replica answered /readyz (issue 44, item 15): before, the line
    // came after one round of checks whatever they found, and requests then met 503.
    await untilEveryReplicaReady(pools, startTimeoutMs);

    logger.info('fleet listening', {
      url: `${scheme}://localhost:${port}`,
      address: boundAddress(server),
      functions: FUNCTION_NAMES,
      replicasPerFunction: options.replicas,
      processes: all.length,
      // One more function outside the fleet, sharing its tokens, cluster and database (README, "Local modes").
      oneMoreFunction: joining.joinCommand,
      ...(tls ? { tlsCertificateSha256: tls.fingerprint, tlsCertificateFile: tls.certificateFile } : {}),
    });
    return { url, port, secretFolder: paths.adminSecret, replicas, pools, close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

const READINESS_RECHECK_MS = 200;

/** Checks every replica's `/readyz` until all answer ready; past `timeoutMs`, fails naming each one not ready and why. */
async function untilEveryReplicaReady(
  pools: ReadonlyMap<FunctionName, UpstreamPool>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await Promise.all([...pools.values()].map((pool) => pool.checkAll()));
    const waiting = [...pools.values()].filter((pool) => !pool.everyReady());
    if (waiting.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(
        `not every replica answered /readyz within ${timeoutMs} ms: ${waiting.map((pool) => `${pool.name}: ${pool.unavailableReason()}`).join('; ')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, READINESS_RECHECK_MS));
  }
}

/** The cluster every replica uses, as a kubeconfig file: KUBECONFIG as given, else the local emulator's. */
async function connectFleetCluster(
  cluster: ClusterSettings,
  folder: string,
  cleanups: Array<() => Promise<unknown>>,
): Promise<string> {
  const given = cluster.kubeconfig;
  if (given) return given;
  const emulator = await startLocalCluster(folder);
  cleanups.push(() => emulator.close());
  const path = join(folder, 'kubeconfig.yaml');
  // client-node's own export (JSON, which is YAML) keeps its plain-http trust setting.
  await writeFile(path, emulator.kubeConfig().exportConfig(), { mode: 0o600 });
  return path;
}
