import type { ServerConfig } from '../../base/config/server-config.ts';
import type { Settings } from '../../base/config/settings.ts';
import type { AdminSettingsSource } from '../../base/config/admin-settings-source.ts';
import { openAdminSettingsSource } from '../../base/config/secret-sources/open-admin-settings-source.ts';
import { AdminTokenAuthenticator } from '../../auth/admin-token.ts';
import { RequestAuthenticator } from '../../auth/request-authenticator.ts';
import { PasswordVerifier } from '../../auth/password-verifier.ts';
import { LoginThrottle } from '../../auth/login-throttle.ts';
import { createLogger, type Logger } from '../../base/logging/logger.ts';
import { routeTable, type RouteDefinition } from '../../contract/routes/route-table.ts';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Authorizer } from '../../authz/authorizer.ts';
import type { IdentityConfig } from '../../base/config/identity-config.ts';
import type { ClusterConnection } from '../../base/kubernetes/cluster-connection.ts';
import type { TokenAuthenticator } from '../../auth/authenticator.ts';
import { identityOnFirstUse } from './identity-on-first-use.ts';
import { lazyRunDatabase, type RunDatabase } from './run-database.ts';
import type { DevelopmentServices } from './development-services.ts';
import type { AuditRecorder, AuditSink } from '../../domain/audit/audit-recorder.ts';
import type { AuditStore } from '../../domain/audit/audit-store.ts';
import { createAuditTrail } from './audit-trail.ts';
import { createMetrics, type Metrics } from '../../base/metrics/metrics.ts';
import { StreamSessions, type StreamLimit } from '../../domain/streams/stream-sessions.ts';
import { SharedStreamSlots } from '../../domain/streams/shared-stream-slots.ts';
import type { Database } from '../../base/database/database.ts';
import { PageTokens } from '../../base/database/page-tokens.ts';
import { sharedLimit } from '../../base/database/shared-limit.ts';
import type { LoginThrottleSettings } from '../../base/config/login-throttle-settings.ts';
import { lazyOutboundSweeps, type OutboundSweeps } from './outbound-sweeps.ts';
import { withProjectTokens } from '../../domain/tokens/project-token-principals.ts';
import { ProjectTokenStore } from '../../domain/tokens/project-token-store.ts';
import { TokenRevocationListener } from '../../domain/tokens/token-revocation-listener.ts';
import { tokenUseRecorder } from '../../domain/tokens/token-use-recorder.ts';
import { projectTokenOf } from '../../domain/tokens/token-credentials.ts';

/** Everything the functions share in one process: configuration, the verifier, the logger. */
export interface AppContext {
  config: ServerConfig;
  routes: RouteDefinition[];
  logger: Logger;
  adminSettings: AdminSettingsSource;
  adminTokens: AdminTokenAuthenticator;
  authenticator: RequestAuthenticator;
  passwordVerifier: PasswordVerifier;
  /** Failed admin logins, per client and for the account: in the database when the process has one (issue 36). */
  loginThrottle: LoginThrottle;
  /** OIDC settings (undefined when off) and the ServiceAccount issuers configured. */
  identity: IdentityConfig;
  /**
   * The Kubernetes API connection (KUBECONFIG, in-cluster, or the built-in emulator in development)
   * once made: always with `cluster: 'at-start'`; with `cluster: 'on-first-use'`, undefined until a
   * request has needed it. Code that needs it whichever way asks `cluster()`.
   */
  readonly kubernetes: ClusterConnection | undefined;
  /**
   * The same connection for a handler that needs the cluster whichever way this context connects:
   * with `cluster: 'on-first-use'` it connects now (once). Throws ApiError 503 when it cannot.
   */
  cluster(): Promise<ClusterConnection>;
  /** Call from handlers: `await context.authorizer.authorize(request.principal, {...})`; throws 403/503. */
  authorizer: Authorizer;
  /** Run history; PostgreSQL is opened on first use, so functions without runs never start it. */
  runs: RunDatabase;
  /** The outbound engine on the run history database: its receivers, its sweeps (shared/server/app/outbound-sweeps.ts). */
  outbound: OutboundSweeps;
  /** The audit trail: every request the policy records goes to its sinks (docs/audit.md). */
  audit: AuditRecorder;
  /** The audit events in the database, for the audit API; throws ApiError 503 without a database. */
  auditStore(): Promise<AuditStore>;
  /** Project tokens' rows (issue 46): what the list shows, their last use, their revocation; 503 without a database. */
  projectTokens: ProjectTokenStore;
  /** This context's Prometheus metrics (its own registry) and the hooks that record them; NO_METRICS when METRICS=off. */
  metrics: Metrics;
  /**
   * The open streams of one kind (run-log streams, watches), capped per principal: across every
   * instance in the database when the process has one (issue 36), else in this process.
   */
  streamSessions(limit: StreamLimit): StreamSessions;
  close(): Promise<void>;
}

export interface AppContextOptions {
  logger?: Logger;
  /** Overrides where the admin settings come from (tests, external secret sources). */
  adminSettings?: AdminSettingsSource;
  /** The Kubernetes API to use instead of KUBECONFIG / in-cluster / a development cluster (tests). */
  kubeConfig?: KubeConfig;
  /**
   * Local development's cluster and database, started when the environment names neither and this
   * is not production (the development entries under infra/development/ pass them). Without them
   * such a context has no cluster and no database (503s).
   */
  development?: DevelopmentServices;
  /**
   * `at-start` (the default): connect to the cluster and start token verification before serving.
   * `on-first-use`: only when a request brings a token that is not the admin's or needs a
   * non-admin principal authorized, so that a function whose handlers never call the cluster
   * themselves starts without loading the Kubernetes client.
   */
  cluster?: 'at-start' | 'on-first-use';
  /** Where audit events go instead of standard output (tests read them back); the database's sink stays. */
  auditSinks?: AuditSink[];
}

interface ContextIdentity {
  kubernetes: () => ClusterConnection | undefined;
  cluster: () => Promise<ClusterConnection>;
  tokenAuthenticators: TokenAuthenticator[];
  authorizer: Authorizer;
  close(): Promise<void>;
}

/** A context that connected to the cluster at start (`cluster: 'at-start'`), as such functions' factories get it. */
export type ConnectedAppContext = AppContext & { readonly kubernetes: ClusterConnection };

/** Whether the context holds its cluster connection (always with `cluster: 'at-start'`). */
export function isConnected(context: AppContext): context is ConnectedAppContext {
  return context.kubernetes !== undefined;
}

/** Builds the shared context from the parsed settings; throws ConfigError when the admin secret cannot be opened. */
export async function createAppContext(settings: Settings, options: AppContextOptions = {}): Promise<AppContext> {
  const config = settings.server;
  const logger = options.logger ?? createLogger({ level: config.logLevel });
  const metrics = createMetrics(config.metrics);
  const adminSettings =
    options.adminSettings ??
    (await openAdminSettingsSource(settings, logger, (result) => metrics.secretSourceReload(result)));
  const adminTokens = new AdminTokenAuthenticator(adminSettings, config.apiBaseUrl);
  const identity = await contextIdentity(settings, logger, options, metrics);
  // A database the process was given, or local development's embedded one (npm start, the fleet).
  const withDatabase =
    settings.database.url !== undefined || (!config.production && options.development?.localState === true);
  // Project tokens (issue 46): each instance that has seen one listens for revocations and drops them at once.
  let authenticator: RequestAuthenticator | undefined;
  const revocations = withDatabase
    ? new TokenRevocationListener(
        () => runs.connectionSettings(),
        (user) => authenticator?.forgetUser(user),
        logger,
        () => authenticator?.forgetUsers((user) => projectTokenOf(user) !== undefined),
      )
    : undefined;
  const listening = () => revocations?.listening() ?? Promise.resolve();
  authenticator = new RequestAuthenticator(
    [
      adminTokens,
      ...identity.tokenAuthenticators.map((verifier) => withProjectTokens(verifier, config.apiGroup, listening)),
    ],
    undefined,
    (hit) => metrics.reviewCacheLookup('token', hit),
  );
  // A rotated key or a disabled account must take effect at once, not when cached entries expire.
  const unsubscribe = adminSettings.onChange(() => authenticator.forgetVerifiedTokens());
  const passwordVerifier = new PasswordVerifier();
  // Keyed by an HKDF sub-key of the signing key every replica shares: a list's next page may be asked of any replica.
  const pageTokens = new PageTokens(() => adminSettings.current().signingKey);
  const runs = lazyRunDatabase(
    settings.database,
    settings.runHistory,
    config,
    logger,
    options.development?.startDatabase,
    metrics,
    pageTokens,
  );
  const outbound = lazyOutboundSweeps(runs, settings.outbound, logger, metrics);
  const projectTokens = new ProjectTokenStore(runs.database);
  if (withDatabase) authenticator.onUse = tokenUseRecorder(projectTokens, config.apiGroup, logger);
  const audit = createAuditTrail(settings, runs, logger, {
    ...(options.auditSinks ? { sinks: options.auditSinks } : {}),
    pageTokens,
    withDatabase,
  });
  collectContextMetrics(metrics, adminSettings, runs, outbound, audit.database);
  let loginThrottle: LoginThrottle | undefined;
  return {
    get kubernetes() {
      return identity.kubernetes();
    },
    cluster: () => identity.cluster(),
    config,
    routes: routeTable(config.apiGroup),
    logger,
    adminSettings,
    adminTokens,
    authenticator,
    passwordVerifier,
    // Made when first asked for (by the login function, at its start): only it says where failures are counted.
    get loginThrottle() {
      loginThrottle ??= failedLoginThrottle(
        settings.login,
        { logger, metrics },
        withDatabase ? runs.database : undefined,
      );
      return loginThrottle;
    },
    identity: settings.identity,
    authorizer: identity.authorizer,
    runs,
    outbound,
    audit: audit.recorder,
    auditStore: () => audit.store(),
    projectTokens,
    metrics,
    streamSessions: (limit) =>
      cappedStreams(limit, { adminSettings, adminTokens, logger, metrics }, withDatabase ? runs.database : undefined),
    async close() {
      unsubscribe();
      outbound.close();
      await revocations?.close();
      await audit.close();
      await runs.close();
      await identity.close();
      await passwordVerifier.close();
      await adminSettings.close();
    },
  };
}

/** StreamSessions for `limit`, sharing their count through the database when there is one; the start-up log says which. */
function cappedStreams(
  limit: StreamLimit,
  context: Pick<AppContext, 'adminSettings' | 'adminTokens' | 'logger' | 'metrics'>,
  database: Database | undefined,
): StreamSessions {
  const { logger, metrics } = context;
  const counted = sharedLimit({
    name: limit.kind === 'run_log' ? 'run_log_streams' : 'watches',
    database,
    logger,
    metrics,
    budgets: { max: limit.max, setting: limit.setting },
  });
  const shared = database && new SharedStreamSlots({ kind: limit.kind, database, limit: counted });
  return new StreamSessions({
    limit,
    adminSettings: context.adminSettings,
    adminTokens: context.adminTokens,
    opened: () => metrics.streamOpened(limit.kind),
    ...(shared ? { shared } : {}),
  });
}

/** The login throttle, counting failures in the database when there is one; the start-up log says which. */
function failedLoginThrottle(
  login: LoginThrottleSettings,
  context: Pick<AppContext, 'logger' | 'metrics'>,
  database: Database | undefined,
): LoginThrottle {
  const { windowMs, accountMaxFailures, clientMaxFailures } = login;
  const limit = sharedLimit({
    name: 'login_failures',
    database,
    ...context,
    budgets: { windowSeconds: windowMs / 1000, clientMaxFailures, accountMaxFailures },
  });
  return new LoginThrottle({ settings: login, limit });
}

/**
 * What the metrics read at each scrape (shared/base/metrics/metrics.ts): the pool and the work queue of the
 * run database only once it is open (a scrape never opens it: a function without run history never
 * does), the outbound backlog in a process that sweeps, the audit events the database sink dropped,
 * and when the signing key in force was loaded.
 */
function collectContextMetrics(
  metrics: Metrics,
  adminSettings: AdminSettingsSource,
  runs: RunDatabase,
  outbound: OutboundSweeps,
  auditDatabase: { dropped: number } | undefined,
): void {
  if (!metrics.enabled) return;
  let signingKeyId = adminSettings.current().signingKeyId;
  let signingKeyLoadedAt = Date.now();
  adminSettings.onChange((settings) => {
    if (settings.signingKeyId === signingKeyId) return;
    signingKeyId = settings.signingKeyId;
    signingKeyLoadedAt = Date.now();
  });
  metrics.collectOnScrape({
    signingKeyLoadedAt: () => signingKeyLoadedAt,
    databasePool: () => {
      const pool = runs.openedPool();
      return pool && { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
    },
    runQueue: async () => runs.openedRecords()?.pendingQueue(),
    outboundQueue: () => outbound.backlog(),
    // The standard-output sink writes synchronously to the process's batched writer: it drops nothing.
    auditEventsDropped: (): Record<string, number> => (auditDatabase ? { database: auditDatabase.dropped } : {}),
  });
}

async function contextIdentity(
  settings: Settings,
  logger: Logger,
  options: AppContextOptions,
  metrics: Metrics,
): Promise<ContextIdentity> {
  // Imported, not linked: its modules load the Kubernetes client, which a function that
  // connects on first use must not pay for at start.
  const build = async () =>
    (await import('./identity-services.ts')).createIdentityServices(
      settings,
      logger,
      {
        ...(options.kubeConfig ? { given: options.kubeConfig } : {}),
        ...(options.development ? { developmentCluster: options.development.startCluster } : {}),
      },
      metrics,
    );
  if (options.cluster === 'on-first-use') {
    const onFirstUse = identityOnFirstUse(build, logger);
    return {
      kubernetes: () => onFirstUse.connected(),
      cluster: () => onFirstUse.cluster(),
      tokenAuthenticators: [onFirstUse.tokenAuthenticator],
      authorizer: onFirstUse.authorizer,
      close: () => onFirstUse.close(),
    };
  }
  const services = await build();
  return {
    kubernetes: () => services.kubernetes,
    cluster: async () => services.kubernetes,
    tokenAuthenticators: services.tokenAuthenticators,
    authorizer: services.authorizer,
    close: () => services.close(),
  };
}
