import { KubeConfig } from '@kubernetes/client-node';
import type { ServerConfig } from '../config/server-config.ts';
import type { ClusterSettings } from '../config/settings.ts';
import type { Logger } from '../logging/logger.ts';
import { kubeConfigFromFiles } from '../config/kubeconfig-files.ts';
import { shareGeneratedClientConnections } from './shared-dispatchers.ts';

/** The Kubernetes API the server talks to, shared by every part that needs it. */
export interface ClusterConnection {
  kubeConfig: KubeConfig;
  /** Where it points, for the start-up log. */
  description: string;
  /** True for the built-in emulator of local development. */
  builtInEmulator: boolean;
  /** False in production with no cluster configured: every call fails, so nothing asks it in advance. */
  configured: boolean;
  /** Stops what the connection started (the built-in emulator, when used). */
  close(): Promise<void>;
}

/** A cluster started for local development (the built-in emulator), as its starter hands it over. */
export interface StartedDevelopmentCluster {
  url: string;
  /** Where it keeps its objects across restarts; undefined when they are lost with the process. */
  stateDir?: string;
  kubeConfig(): KubeConfig;
  close(): Promise<void>;
}

/**
 * Starts a development cluster. The development entries hand one over (DevelopmentServices,
 * infra/development/development-services.ts); the product names none.
 */
export type DevelopmentCluster = () => Promise<StartedDevelopmentCluster>;

/** Where the cluster comes from when the environment names none. */
export interface ClusterChoice {
  /** A KubeConfig to use as it is (tests). */
  given?: KubeConfig;
  /** Started in development when neither KUBECONFIG nor in-cluster configuration is set. */
  developmentCluster?: DevelopmentCluster;
}

/**
 * Connects to the cluster: the given KubeConfig (tests), else `KUBECONFIG`, else the in-cluster
 * configuration when `KUBERNETES_SERVICE_HOST` is set, else (never in production) the development
 * cluster the entry point handed over, started in this process, which the start-up log says
 * plainly. With none of these, every Kubernetes call fails, so its callers answer 503.
 */
export async function connectToCluster(
  settings: ClusterSettings,
  config: Pick<ServerConfig, 'production'>,
  logger: Logger,
  choice: ClusterChoice = {},
): Promise<ClusterConnection> {
  const { given, developmentCluster } = choice;
  if (given) return fixed(given, `the given KubeConfig (${given.getCurrentCluster()?.server ?? 'no server'})`);
  if (settings.kubeconfig !== undefined) {
    const kubeConfig = kubeConfigFromFiles(settings.kubeconfig);
    return fixed(kubeConfig, `KUBECONFIG (${kubeConfig.getCurrentCluster()?.server ?? 'no server'})`);
  }
  if (settings.inCluster) {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromCluster();
    return fixed(kubeConfig, `in-cluster (${kubeConfig.getCurrentCluster()?.server ?? 'no server'})`);
  }
  if (config.production || !developmentCluster) {
    // Admin keeps working; ServiceAccount tokens and OIDC users get 503 (fail closed) until a cluster is configured.
    logger.error(
      'no Kubernetes cluster configured (KUBECONFIG unset, KUBERNETES_SERVICE_HOST unset): ServiceAccount tokens and OIDC users will get 503',
    );
    return { ...fixed(unreachableCluster(), 'none configured'), configured: false };
  }
  const emulator = await developmentCluster();
  logger.warn(
    `no cluster configured: using the built-in Kubernetes emulator at ${emulator.url} (${emulator.stateDir ? `its state is kept in ${emulator.stateDir}` : 'its state is lost when the process stops'})`,
  );
  return {
    kubeConfig: emulator.kubeConfig(),
    description: `built-in emulator (${emulator.url})`,
    builtInEmulator: true,
    configured: true,
    close: () => emulator.close(),
  };
}

function fixed(kubeConfig: KubeConfig, description: string): ClusterConnection {
  return {
    kubeConfig: shareGeneratedClientConnections(kubeConfig),
    description,
    builtInEmulator: false,
    configured: true,
    close: async () => {},
  };
}

// The .invalid top-level domain never resolves (RFC 2606): every call fails fast, nothing is ever reached.
function unreachableCluster(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromClusterAndUser(
    { name: 'unconfigured', server: 'https://kubernetes.invalid', skipTLSVerify: false },
    { name: 'unconfigured' },
  );
  return kubeConfig;
}
